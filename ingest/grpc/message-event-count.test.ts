// The event count read before decoding must be the number of events protobuf-es then decodes, on any
// bytes it decodes: an event the count misses is an event past the bound. protobuf-es reads known
// fields by number whatever their wire type and lets a field run past its event, so the generated
// messages hold records of any field and wire type, damaged anywhere.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventBatchSchema, EventChunkSchema, EventSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { maxEventsForSize } from '../events/event-density.js';
import { assertEventsBounded, countMessageEvents, EVENT_BATCH, EVENT_CHUNK } from './message-event-count.js';
import { damaged } from './plain-scalar-event-test-harness.js';
import { chunkBytes, eventOfRecords, record } from './proto-chunk-test-harness.js';

/** Long enough to be counted (2,286 bytes or more): parts repeated until they are. */
const long = (parts: Uint8Array[]) => {
  const all = parts.length === 0 ? [new Uint8Array([8, 1])] : parts;
  const out: Uint8Array[] = [];
  for (let size = 0; size < 2_400;) for (const part of all) (out.push(part), (size += part.length + 1));
  return new Uint8Array(Buffer.concat(out));
};
const message = fc.oneof(
  fc.array(chunkBytes, { minLength: 1, maxLength: 3 }).map(long),
  fc.array(fc.oneof(eventOfRecords, record, chunkBytes), { maxLength: 6 }).map(long),
);

function decoded(bytes: Uint8Array) {
  try {
    return fromBinary(EventChunkSchema, bytes, { readUnknownFields: false });
  } catch {
    return undefined;
  }
}

describe('countMessageEvents', () => {
  it('counts the events protobuf-es decodes, and reads the chunk id it reads', () => {
    let compared = 0;
    fc.assert(
      fc.property(fc.oneof(message, damaged(message, 3)), (bytes) => {
        const chunk = decoded(bytes);
        if (chunk === undefined || bytes.length < 2_286) return;
        compared++;
        expect(countMessageEvents(bytes, EVENT_CHUNK)).toEqual({ events: chunk.events.length, id: chunk.chunkId });
      }),
      { numRuns: 2_000 },
    );
    // A third of the generated messages decode (damage breaks the rest): enough not to hold the property by discarding.
    expect(compared).toBeGreaterThan(400);
  });

  it('follows protobuf-es where a field runs past its event: events hidden in an unknown field are counted', () => {
    // An event of one byte, the tag of its double `value`: protobuf-es reads the double's 8 bytes past
    // the event, over a varint record and the next record's tag and length, then reads that record's
    // payload, 100,000 empty events, as events of the chunk. By their declared lengths the records
    // hold one event.
    const payload = Buffer.from(Array(100_000).fill([0x12, 0x00]).flat());
    const hidden = new BinaryWriter().tag(3, WireType.LengthDelimited).bytes(payload).finish();
    const header = hidden.length - payload.length;
    const filler = new BinaryWriter()
      .tag(4, WireType.Varint)
      .uint64(2n ** (7n * BigInt(8 - header - 2)))
      .finish();
    expect(filler.length + header).toBe(8);
    const overrun = new BinaryWriter()
      .tag(2, WireType.LengthDelimited)
      .bytes(Uint8Array.from([0x31]))
      .finish();
    const bytes = Buffer.concat([overrun, filler, hidden]);
    expect(decoded(bytes)!.events).toHaveLength(100_001);
    expect(countMessageEvents(bytes, EVENT_CHUNK)!.events).toBe(100_001);
    expect(() => assertEventsBounded(bytes, EVENT_CHUNK)).toThrow(/^Validation error \(request holds more than/);
  });

  it('does not read messages too short to pass the bound', () => {
    expect(countMessageEvents(new Uint8Array(2_285).fill(0x0a), EVENT_BATCH)).toBeUndefined();
  });

  it('a batch at the bound passes, one event more is refused', () => {
    const batch = (n: number) =>
      toBinary(EventBatchSchema, create(EventBatchSchema, { events: Array(n).fill(create(EventSchema, {})) }));
    const over = (n: number) => n > maxEventsForSize(batch(n).length);
    let n = 1_000;
    while (!over(n)) n += 100;
    while (over(n - 1)) n--;
    expect(() => assertEventsBounded(batch(n - 1), EVENT_BATCH)).not.toThrow();
    expect(() => assertEventsBounded(batch(n), EVENT_BATCH)).toThrow(
      `Validation error (request holds more than ${maxEventsForSize(batch(n).length)} events in ${batch(n).length} bytes: at most 1000 and one per 16 bytes)`,
    );
  });

  it('stops reading a batch at the first event beyond the bound (a 64 MiB batch took 1 s to count whole)', () => {
    // 100,000 empty events, then a field running past the end: only a walk to the end meets it.
    const bytes = Buffer.concat([Buffer.alloc(200_000, Buffer.from([0x0a, 0x00])), Buffer.from([0x0a, 0x7f])]);
    expect(() => assertEventsBounded(bytes, EVENT_BATCH)).toThrow(/request holds more than 13500 events/);
    expect(() => countMessageEvents(bytes, EVENT_BATCH)).toThrow(/The browser \(or proxy\) sent a request/);
  });
});
