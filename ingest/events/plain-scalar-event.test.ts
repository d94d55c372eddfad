// The plain scalar event's reading of an Event's bytes: which events are plain, and the numbers
// and texts it takes from them against what the general path makes of the same event (the chunk
// reader's iteration, checkedTimestamp, parseScalar, String()). Whole streams, fused and general,
// are compared in ingest/grpc/plain-scalar-events.property.test.ts.
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventSchema } from '../grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { checkedTimestamp } from './event-fields.js';
import { MAX_TIMESTAMP } from './event-limits.js';
import { PLAIN_EVENT_TEXTS_BYTES, readPlainScalarEvent } from './plain-scalar-event.js';
import { PlainScalarLine } from './plain-scalar-line.js';

type EventInit = MessageInitShape<typeof EventSchema>;

const RECEIVED_AT = 1_718_000_000_000;
const SDK: EventInit = {
  type: 'training_stats_scalar',
  task: 'p-t3',
  iter: 12n,
  metric: 'metric0',
  variant: 'variant3',
  value: 25.714285714285715,
  timestamp: { case: 'timestampMs', value: 1718000000123 },
  modelEvent: false,
  allowLocked: false,
};

interface Read {
  task: string;
  metric: string;
  variant: string;
  iter: number;
  timestamp: number;
  value: number;
  texts: string;
  allowLocked: number;
}

/** What the fused path reads of an event's bytes: undefined when it is not plain. */
function read(bytes: Uint8Array, receivedAt = RECEIVED_AT): Read | undefined {
  const buffer = Buffer.from(bytes);
  const line = new PlainScalarLine();
  const texts = Buffer.alloc(PLAIN_EVENT_TEXTS_BYTES);
  if (!readPlainScalarEvent(buffer, 0, buffer.length, line, texts, receivedAt)) return undefined;
  const text = (from: number, to: number) => texts.toString('latin1', from, to);
  return {
    task: buffer.toString('latin1', line.taskStart, line.taskEnd),
    metric: buffer.toString('latin1', line.metricStart, line.metricEnd),
    variant: buffer.toString('latin1', line.variantStart, line.variantEnd),
    iter: line.iter,
    timestamp: line.timestamp,
    value: line.value,
    texts: `${line.valueText},${text(line.timestampStart, line.timestampEnd)},${text(line.iterStart, line.iterEnd)}`,
    allowLocked: line.allowLocked,
  };
}

const encoded = (init: EventInit) => toBinary(EventSchema, create(EventSchema, init));
const records = (build: (w: BinaryWriter) => BinaryWriter) => build(new BinaryWriter()).finish();

describe('a plain scalar event', () => {
  it('is read with the texts the general path prints', () => {
    expect(read(encoded(SDK))).toEqual({
      task: 'p-t3',
      metric: 'metric0',
      variant: 'variant3',
      iter: 12,
      timestamp: 1718000000123,
      value: 25.714285714285715,
      texts: '25.714285714285715,1718000000123,12',
      allowLocked: 0,
    });
  });

  it('may have its records in any order, metric and variant absent, no timestamp (the time received)', () => {
    const bytes = records((w) =>
      w
        .tag(6, WireType.Bit64)
        .double(-0)
        .tag(18, WireType.Varint)
        .bool(true)
        .tag(3, WireType.Varint)
        .sint64(-7n)
        .tag(2, WireType.LengthDelimited)
        .string('t1')
        .tag(1, WireType.LengthDelimited)
        .string('training_stats_scalar'),
    );
    expect(read(bytes)).toMatchObject({ metric: '', variant: '', texts: `0,${RECEIVED_AT},-7`, allowLocked: 1 });
    // A clock of fractions (tests') is printed by the general path.
    expect(read(bytes, RECEIVED_AT + 0.5)).toBeUndefined();
  });

  it('reads iterations as the chunk reader does, and is not plain beyond the safe integers', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
          fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n }),
          // Digits printed in two parts around 10^8.
          fc.constantFrom(99_999_999n, 100_000_000n, -100_000_001n, 9_007_199_199_999_999n, 8_999_999_999_999_999n),
        ),
        (iter) => {
          const got = read(encoded({ ...SDK, iter }));
          if (iter >= -(2n ** 53n) + 1n && iter <= 2n ** 53n - 1n) {
            expect(got?.iter).toBe(Number(iter));
            expect(got?.texts.split(',')[2]).toBe(String(iter));
          } else expect(got).toBeUndefined();
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes timestamps as checkedTimestamp does, and is not plain where it refuses them', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double(),
          fc.double({ min: -2, max: MAX_TIMESTAMP + 2 }),
          fc.constantFrom(-0, -0.5, MAX_TIMESTAMP, MAX_TIMESTAMP + 0.9, MAX_TIMESTAMP + 1),
        ),
        (ms) => {
          const got = read(encoded({ ...SDK, timestamp: { case: 'timestampMs', value: ms } }));
          const checked = checkedTimestamp(ms);
          if (typeof checked === 'string') expect(got).toBeUndefined();
          else {
            expect(Object.is(got?.timestamp, checked)).toBe(true);
            expect(got?.texts.split(',')[1]).toBe(String(checked));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes finite values, -0 as 0, and prints them with String()', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.float()), (value) => {
        const got = read(encoded({ ...SDK, value }));
        if (!Number.isFinite(value)) expect(got).toBeUndefined();
        else {
          expect(Object.is(got?.value, value || 0)).toBe(true);
          expect(got?.texts.split(',')[0]).toBe(String(value || 0));
        }
      }),
    );
  });

  it.each<[string, EventInit | Uint8Array]>([
    ['another type', { ...SDK, type: 'training stats scalar' }],
    ['no type', { ...SDK, type: undefined }],
    ['no task', { ...SDK, task: undefined }],
    ['an empty task', { ...SDK, task: '' }],
    ['a task of other characters', { ...SDK, task: 't 1' }],
    ['a task too long', { ...SDK, task: 'a'.repeat(129) }],
    ['no iteration', { ...SDK, iter: undefined }],
    ['no value', { ...SDK, value: undefined }],
    ['a NaN value', { ...SDK, value: Number.NaN }],
    ['an infinite value', { ...SDK, value: Number.NEGATIVE_INFINITY }],
    ['a timestamp as text', { ...SDK, timestamp: { case: 'timestampText', value: '1718000000123' } }],
    ['a metric above ASCII', { ...SDK, metric: 'é' }],
    ['a variant too long', { ...SDK, variant: 'x'.repeat(4097) }],
    ['a worker', { ...SDK, worker: 'node-7' }],
    ['an x-axis label', { ...SDK, xAxisLabel: 'epoch' }],
    ['a model event', { ...SDK, modelEvent: true }],
    ['a model', { ...SDK, model: 'm1' }],
    ['values', { ...SDK, values: [1] }],
    ['values_present', { ...SDK, valuesPresent: true }],
    ['a log field', { ...SDK, msg: '' }],
    ['skip_validation', { ...SDK, skipValidation: false }],
    ['a repeated record', Buffer.concat([encoded(SDK), encoded({ value: 1 })])],
    ['an unknown field', Buffer.concat([encoded(SDK), records((w) => w.tag(30, WireType.Varint).uint32(1))])],
    [
      'a bool of two bytes',
      Buffer.concat([encoded({ ...SDK, allowLocked: undefined }), Buffer.from([0x90, 0x01, 0x81, 0x00])]),
    ],
    [
      'a bool other than 0 or 1',
      Buffer.concat([encoded({ ...SDK, allowLocked: undefined }), Buffer.from([0x90, 0x01, 0x02])]),
    ],
    ['a record cut short', encoded(SDK).subarray(0, encoded(SDK).length - 1)],
  ])('is not plain with %s', (_, event) => {
    expect(read(event instanceof Uint8Array ? event : encoded(event))).toBeUndefined();
  });

  it('is plain with a varint padded within eight bytes', () => {
    const padded = Buffer.from([0x18, 0x98, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    expect(read(Buffer.concat([encoded({ ...SDK, iter: undefined }), padded]))?.iter).toBe(12);
    const longer = Buffer.from([0x18, 0x98, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    expect(read(Buffer.concat([encoded({ ...SDK, iter: undefined }), longer]))).toBeUndefined();
  });
});
