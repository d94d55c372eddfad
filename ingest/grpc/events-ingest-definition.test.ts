import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../shared/errors/error-catalogue.js';
import { decodeRequest, eventsIngestDefinition, eventsIngestServerDefinition } from './events-ingest-definition.js';
import {
  ChunkAckSchema,
  EventChunkSchema,
  EventSchema,
  EventsIngest,
} from './gen/clearml/events/v1/events_ingest_pb.js';

describe('eventsIngestDefinition', () => {
  it('matches the service generated from the .proto', () => {
    // The definition is declared by hand: this keeps it from drifting from the contract.
    const declared = Object.entries(eventsIngestDefinition).map(([name, m]) => [
      name,
      m.path,
      m.requestStream,
      m.responseStream,
    ]);
    const generated = EventsIngest.methods.map((m) => [
      m.name,
      `/${EventsIngest.typeName}/${m.name}`,
      m.methodKind === 'client_streaming' || m.methodKind === 'bidi_streaming',
      m.methodKind === 'server_streaming' || m.methodKind === 'bidi_streaming',
    ]);
    expect(declared).toEqual(generated);
    expect(Object.keys(eventsIngestServerDefinition)).toEqual(Object.keys(eventsIngestDefinition));
  });

  it('serializes with the generated schemas', () => {
    const chunk = create(EventChunkSchema, { chunkId: 2n ** 64n - 1n, events: [{ task: 't', iter: -3n }] });
    const { requestSerialize, requestDeserialize, responseSerialize, responseDeserialize } =
      eventsIngestDefinition.StreamEvents;
    expect(requestDeserialize(requestSerialize(chunk))).toEqual(chunk);
    const ack = create(ChunkAckSchema, { chunkId: 7n, error: { code: 503, subcode: 0, message: 'm' } });
    expect(responseDeserialize(responseSerialize(ack))).toEqual(ack);
  });

  it('hands the server raw request bytes, decoded by decodeRequest', () => {
    const bytes = eventsIngestDefinition.Add.requestSerialize(create(EventSchema, { task: 't' }));
    expect(eventsIngestServerDefinition.Add.requestDeserialize(bytes)).toBe(bytes);
    expect(decodeRequest(EventSchema, bytes).task).toBe('t');
  });

  it('turns undecodable bytes into the catalogue malformed_body error', () => {
    let thrown: unknown;
    try {
      decodeRequest(EventSchema, Uint8Array.from([0x0a, 0x7f]));
    } catch (err) {
      thrown = err;
    }
    expect(isApiError(thrown) && [thrown.entry.code, thrown.entry.subcode, thrown.entry.grpc]).toEqual([400, 0, 3]);
  });
});
