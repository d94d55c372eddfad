/**
 * Generated StreamEvents chunks for property tests: events of every field,
 * chunks of them, and records of any field number and wire type (unknown,
 * repeated, of the wrong wire type, nested in an event) that protobuf-es
 * reads in its lax way.
 */
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { EventChunkSchema, EventSchema } from './gen/clearml/events/v1/events_ingest_pb.js';

type EventInit = MessageInitShape<typeof EventSchema>;

const text = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 12 }));
const double = fc.oneof(fc.double(), fc.constantFrom(0, -0, 1.5, 1718000000000));
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });

export const event: fc.Arbitrary<EventInit> = fc.record(
  {
    type: fc.oneof(fc.constantFrom('training_stats_scalar', 'log', 'plot'), text),
    task: text,
    iter: fc.oneof(int64, fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n })),
    metric: text,
    variant: text,
    value: double,
    values: fc.array(double, { maxLength: 4 }),
    timestamp: fc.oneof(
      double.map((value) => ({ case: 'timestampMs' as const, value })),
      text.map((value) => ({ case: 'timestampText' as const, value })),
    ),
    worker: text,
    msg: text,
    level: text,
    url: text,
    key: text,
    plotStr: text,
    modelEvent: fc.boolean(),
    model: text,
    allowLocked: fc.boolean(),
    xAxisLabel: text,
    skipValidation: fc.boolean(),
    valuesPresent: fc.boolean(),
  },
  { requiredKeys: [] },
);

export const chunkBytes = fc
  .record({ chunkId: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), events: fc.array(event, { maxLength: 5 }) })
  .map((init) => toBinary(EventChunkSchema, create(EventChunkSchema, init)));

/** A record of any field number and wire type, with a payload of that wire type (or not quite). */
export const record = fc
  .record({
    field: fc.integer({ min: 1, max: 24 }),
    wireType: fc.constantFrom(
      WireType.Varint,
      WireType.Bit64,
      WireType.LengthDelimited,
      WireType.Bit32,
      WireType.StartGroup,
    ),
    number: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    bytes: fc.uint8Array({ maxLength: 24 }),
  })
  .map(({ field, wireType, number, bytes }) => {
    const w = new BinaryWriter().tag(field, wireType);
    if (wireType === WireType.Varint) w.uint64(number);
    else if (wireType === WireType.Bit64) w.fixed64(number);
    else if (wireType === WireType.Bit32) w.fixed32(Number(number & 0xffffffffn));
    else if (wireType === WireType.LengthDelimited) w.bytes(bytes);
    else w.tag(field, WireType.EndGroup);
    return w.finish();
  });

/** An Event made of such records, as field 2 of a chunk. */
export const eventOfRecords = fc
  .array(
    fc.oneof(
      record,
      event.map((init) => toBinary(EventSchema, create(EventSchema, init))),
    ),
    { maxLength: 6 },
  )
  .map((records) => new BinaryWriter().tag(2, WireType.LengthDelimited).bytes(Buffer.concat(records)).finish());
