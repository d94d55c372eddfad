// The chunk reader must read every StreamEvents chunk as protobuf-es followed by decodeProtoEvent
// did, malformed ones included (400 malformed_body, and no event handed out): each property sends
// chunks through both and compares what the session would be given.
import { create, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../shared/errors/error-catalogue.js';
import { readEventChunk } from './event-chunk-reader.js';
import { decodeRequest } from './events-ingest-definition.js';
import { EventChunkSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { decodeProtoEvent } from './proto-event-decoder.js';
import { damaged } from './plain-scalar-event-test-harness.js';
import { chunkBytes, eventOfRecords, record } from './proto-chunk-test-harness.js';

type Outcome = { chunkId: bigint; events: Array<Record<string, unknown>> } | { error: string };

/** What the session is given: absent fields and fields present as undefined are the same to it. */
const defined = (raw: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));

const errorOf = (error: unknown) => (isApiError(error) ? `api:${error.entry.code}/${error.entry.subcode}` : 'other');

function viaProtobufEs(bytes: Buffer): Outcome {
  try {
    const chunk = decodeRequest(EventChunkSchema, bytes);
    return { chunkId: chunk.chunkId, events: chunk.events.map((e) => defined(decodeProtoEvent(e))) };
  } catch (error) {
    return { error: errorOf(error) };
  }
}

function viaReader(bytes: Buffer): Outcome {
  try {
    const chunk = readEventChunk(bytes);
    const events: Array<Record<string, unknown>> = [];
    chunk.forEach((raw) => events.push(defined(raw)));
    return { chunkId: chunk.chunkId, events };
  } catch (error) {
    return { error: errorOf(error) };
  }
}

const sameAsProtobufEs = (bytes: Uint8Array) => {
  const buffer = Buffer.from(bytes);
  expect(viaReader(buffer)).toStrictEqual(viaProtobufEs(buffer));
};

const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

describe('readEventChunk', () => {
  it('reads chunks as protobuf-es does', () => {
    fc.assert(fc.property(chunkBytes, sameAsProtobufEs), { numRuns: 2000 });
  });

  it('reads records of any field and wire type, repeated or unknown, as protobuf-es does', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(eventOfRecords, record), { maxLength: 4 }), (parts) =>
        sameAsProtobufEs(concat(parts)),
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses or reads damaged chunks as protobuf-es does', () => {
    fc.assert(fc.property(damaged(chunkBytes, 4), sameAsProtobufEs), { numRuns: 3000 });
  });

  it('reads packed and unpacked values, and the last of repeated fields', () => {
    const e = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string('log')
      .tag(7, WireType.Bit64)
      .double(1)
      .tag(7, WireType.LengthDelimited)
      .bytes(new BinaryWriter().double(2).double(3).finish())
      .tag(1, WireType.LengthDelimited)
      .string('training_stats_vector')
      .tag(8, WireType.Bit64)
      .double(5)
      .tag(9, WireType.LengthDelimited)
      .string('2024-06-10T06:13:20Z')
      .finish();
    const bytes = new BinaryWriter()
      .tag(2, WireType.LengthDelimited)
      .bytes(e)
      .tag(1, WireType.Varint)
      .uint64(7n)
      .finish();
    sameAsProtobufEs(bytes);
    expect(viaReader(Buffer.from(bytes))).toStrictEqual({
      chunkId: 7n,
      events: [{ type: 'training_stats_vector', values: [1, 2, 3], timestamp: '2024-06-10T06:13:20Z' }],
    });
  });

  it('sends an empty list of values only when values_present says so', () => {
    const empty = new BinaryWriter().tag(7, WireType.LengthDelimited).bytes(new Uint8Array(0));
    const chunk = (e: BinaryWriter) => new BinaryWriter().tag(2, WireType.LengthDelimited).bytes(e.finish()).finish();
    sameAsProtobufEs(chunk(empty));
    expect(viaReader(Buffer.from(chunk(empty)))).toStrictEqual({ chunkId: 0n, events: [{}] });
    const present = new BinaryWriter()
      .tag(7, WireType.LengthDelimited)
      .bytes(new Uint8Array(0))
      .tag(21, WireType.Varint)
      .bool(true);
    expect(viaReader(Buffer.from(chunk(present)))).toStrictEqual({ chunkId: 0n, events: [{ values: [] }] });
  });

  it('reads iterations to the nearest double, as Number(bigint) does', () => {
    const iters = [
      0n,
      -1n,
      2n ** 53n - 1n,
      2n ** 53n + 1n,
      2n ** 53n + 3n,
      -(2n ** 53n) - 3n,
      2n ** 63n - 1n,
      -(2n ** 63n),
      2n ** 62n + 2n ** 10n + 1n,
    ];
    for (const iter of iters) {
      const bytes = Buffer.from(toBinary(EventChunkSchema, create(EventChunkSchema, { events: [{ iter }] })));
      expect(viaReader(bytes)).toStrictEqual({ chunkId: 0n, events: [{ iter: Number(iter) }] });
    }
  });

  it('reads plain chunks itself, into objects of one shape (not through protobuf-es)', () => {
    fc.assert(
      fc.property(chunkBytes, (bytes) => {
        readEventChunk(Buffer.from(bytes)).forEach((raw) => expect(Object.keys(raw)).toHaveLength(19));
      }),
    );
  });

  it('hands out no event of a chunk that turns out malformed', () => {
    const good = toBinary(EventChunkSchema, create(EventChunkSchema, { events: [{ type: 'log', task: 't' }] }));
    const bytes = Buffer.from(concat([good, good.subarray(0, good.length - 1)]));
    const added: unknown[] = [];
    expect(() => readEventChunk(bytes).forEach((raw) => added.push(raw))).toThrow();
    expect(added).toEqual([]);
  });
});
