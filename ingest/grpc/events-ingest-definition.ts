/**
 * The grpc-js definition of clearml.events.v1.EventsIngest, declared by hand
 * over the protobuf-es generated schemas: grpc-js only needs paths, streaming
 * kinds and (de)serializers, so no proto loader or grpc codegen is involved.
 */
import { fromBinary, toBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { apiError } from '../../shared/errors/error-catalogue.js';
import {
  AddResultSchema,
  ChunkAckSchema,
  EventBatchSchema,
  EventChunkSchema,
  EventSchema,
} from './gen/clearml/events/v1/events_ingest_pb.js';

/** The service's full name (health status and reflection name it). */
export const EVENTS_INGEST_SERVICE = 'clearml.events.v1.EventsIngest';
const SERVICE_PATH = `/${EVENTS_INGEST_SERVICE}`;

function serializer<S extends DescMessage>(schema: S): (message: MessageShape<S>) => Buffer {
  return (message) => {
    const bytes = toBinary(schema, message);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

function deserializer<S extends DescMessage>(schema: S): (bytes: Buffer) => MessageShape<S> {
  return (bytes) => fromBinary(schema, bytes);
}

function method<Req extends DescMessage, Res extends DescMessage>(
  name: string,
  request: Req,
  response: Res,
  kind: { requestStream: boolean; responseStream: boolean },
): MethodDefinition<MessageShape<Req>, MessageShape<Res>> {
  return {
    path: `${SERVICE_PATH}/${name}`,
    originalName: name,
    ...kind,
    requestSerialize: serializer(request),
    requestDeserialize: deserializer(request),
    responseSerialize: serializer(response),
    responseDeserialize: deserializer(response),
  };
}

/** Typed both ways: what clients (and the tests) build a grpc-js client from. */
export const eventsIngestDefinition = {
  Add: method('Add', EventSchema, AddResultSchema, { requestStream: false, responseStream: false }),
  AddBatch: method('AddBatch', EventBatchSchema, AddResultSchema, { requestStream: true, responseStream: false }),
  StreamEvents: method('StreamEvents', EventChunkSchema, ChunkAckSchema, { requestStream: true, responseStream: true }),
} satisfies ServiceDefinition;

const rawBytes = (bytes: Buffer): Buffer => bytes;

/**
 * What the server registers: requests reach the handlers as bytes, so that a
 * message that does not parse becomes a catalogue error (400/0,
 * INVALID_ARGUMENT) instead of grpc-js's own INTERNAL "Error deserializing
 * request", which clients would take for a server fault and retry.
 */
export const eventsIngestServerDefinition = {
  Add: { ...eventsIngestDefinition.Add, requestDeserialize: rawBytes },
  AddBatch: { ...eventsIngestDefinition.AddBatch, requestDeserialize: rawBytes },
  StreamEvents: { ...eventsIngestDefinition.StreamEvents, requestDeserialize: rawBytes },
} satisfies ServiceDefinition;

/**
 * Parses a request message received as bytes. Unknown fields (from newer
 * clients) are skipped rather than kept: the server never re-serializes
 * requests, and keeping them would only hold memory.
 */
export function decodeRequest<S extends DescMessage>(schema: S, bytes: Uint8Array): MessageShape<S> {
  try {
    return fromBinary(schema, bytes, { readUnknownFields: false });
  } catch (err) {
    throw apiError('malformed_body', undefined, undefined, { cause: err });
  }
}
