// Hostile-input issue, item 1 over gRPC: protobuf events go through the same normaliser with the
// same limits as JSON ones. Protobuf can carry what JSON cannot (NaN and ±Infinity doubles, int64
// iterations beyond 2^53, arbitrarily long repeated fields): each row sends an event over the wire
// and checks the reason the one validation path gives it.
import { create, fromBinary, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeEvent } from '../events/event-normalizer.js';
import { expectStorable } from '../events/storable-event-test-harness.js';
import { decodeRequest } from './events-ingest-definition.js';
import { EventSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { decodeProtoEvent } from './proto-event-decoder.js';

type EventInit = MessageInitShape<typeof EventSchema>;
const context = { receivedAt: 1_718_000_000_000, defaultWorker: 'node-7', allowLockedDefault: false };

/** The event after a trip over the wire, checked: its reason (undefined when accepted). */
function reasonOf(init: EventInit, ctx = context): string | undefined {
  const raw = decodeProtoEvent(fromBinary(EventSchema, toBinary(EventSchema, create(EventSchema, init))));
  const result = normalizeEvent(raw, ctx);
  if (result.event !== undefined) expectStorable(result.event);
  return result.earlyError ?? result.lateError;
}

const f = (init: EventInit, expected: string | undefined, ctx = context) => expect(reasonOf(init, ctx)).toBe(expected);

const scalar = (fields: EventInit = {}): EventInit => ({
  type: 'training_stats_scalar',
  task: 't1',
  value: 1,
  ...fields,
});
const vector = (fields: EventInit = {}): EventInit => ({ type: 'training_stats_vector', task: 't1', ...fields });
const log = (fields: EventInit = {}): EventInit => ({ type: 'log', task: 't1', ...fields });

describe('protobuf values through the one validation path', () => {
  it('int64 iterations', () => {
    f(scalar({ iter: 120n }), undefined);
    f(scalar({ iter: 2n ** 53n + 1n }), undefined);
    f(scalar({ iter: 2n ** 63n - 1n }), 'Iteration number should not exceed 9223372036854775807');
    f(scalar({ iter: -(2n ** 63n) }), 'Iteration number should not be below -9200000000000000000');
    f(scalar({ iter: -9_200_000_000_000_000_000n }), undefined);
  });

  it('NaN and infinite doubles', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      f(scalar({ value }), "Invalid value for field 'value'");
      f(vector({ values: [1, value] }), "Invalid value for field 'values'");
      f(log({ timestamp: { case: 'timestampMs', value } }), "Invalid value for field 'timestamp'");
    }
    f(scalar({ value: Number.MAX_VALUE }), undefined);
  });

  it('timestamps out of range, as a double or as text', () => {
    f(
      log({ timestamp: { case: 'timestampMs', value: 1e20 } }),
      "Field 'timestamp' out of range (0 to 253402300799999 ms)",
    );
    f(
      log({ timestamp: { case: 'timestampMs', value: -1 } }),
      "Field 'timestamp' out of range (0 to 253402300799999 ms)",
    );
    f(log({ timestamp: { case: 'timestampText', value: '1e999' } }), "Invalid value for field 'timestamp'");
    f(
      log({ timestamp: { case: 'timestampText', value: '1e20' } }),
      "Field 'timestamp' out of range (0 to 253402300799999 ms)",
    );
    f(log({ timestamp: { case: 'timestampMs', value: 1718000000123.7 } }), undefined);
  });

  it('long repeated fields and strings', () => {
    f(vector({ values: new Array(100_000).fill(1) }), undefined);
    f(vector({ values: new Array(100_001).fill(1) }), "Field 'values' longer than 100000 items");
    f(vector({ values: [], valuesPresent: true }), undefined);
    f(scalar({ metric: 'm'.repeat(4097) }), "Field 'metric' longer than 4096 characters");
    f(log({ msg: 'x'.repeat(1_048_577) }), "Field 'msg' longer than 1048576 characters");
    f(scalar({ task: 't'.repeat(129) }), `Invalid task id ${'t'.repeat(129)}`);
    f(scalar({ task: 'a:lm' }), 'Invalid task id a:lm');
    f(scalar({ task: 't'.repeat(100_000) }), `Invalid task id ${'t'.repeat(256)}…`);
    f(scalar({ type: 'x'.repeat(100_000) }), `Invalid event type ${'x'.repeat(256)}…`);
  });

  it('the worker metadata is held to the worker cap', () => {
    f(log(), "Field 'worker' longer than 1024 characters", { ...context, defaultWorker: 'w'.repeat(1025) });
  });

  it('invalid UTF-8 in a string field refuses the message (400/0), so no lone surrogate arrives', () => {
    const bytes = toBinary(EventSchema, create(EventSchema, log({ msg: 'AB' })));
    // Corrupt the message's two bytes ('A', 'B') into an invalid UTF-8 sequence.
    const at = Buffer.from(bytes).indexOf('AB');
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    expect(() => decodeRequest(EventSchema, bytes)).toThrow(expect.objectContaining({ id: 'malformed_body' }));
  });

  it('any protobuf event: never throws, and what is accepted is storable', () => {
    const anyString = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('', 'log', 'training_stats_scalar', 'plot', 't1', 'a,b c=d', '\n'),
    );
    const anyDouble = fc.oneof(fc.double(), fc.constantFrom(1e20, -1, 0, 1_718_000_000_000));
    const event = fc.record(
      {
        type: fc.oneof(
          anyString,
          fc.constantFrom('log', 'training_stats_scalar', 'training_stats_vector', 'training_debug_image', 'plot'),
        ),
        task: fc.oneof(anyString, fc.constantFrom('t1', 'model-1')),
        iter: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        metric: anyString,
        variant: anyString,
        worker: anyString,
        value: anyDouble,
        values: fc.array(anyDouble, { maxLength: 5 }),
        timestamp: fc.oneof(
          anyDouble.map((value) => ({ case: 'timestampMs' as const, value })),
          anyString.map((value) => ({ case: 'timestampText' as const, value })),
        ),
        msg: anyString,
        level: anyString,
        url: anyString,
        key: anyString,
        plotStr: anyString,
        modelEvent: fc.boolean(),
        xAxisLabel: anyString,
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(event, (init) => {
        const reason = reasonOf(init as EventInit);
        if (reason !== undefined) expect(reason.length).toBeLessThan(400);
      }),
      { numRuns: 1000 },
    );
  });
});
