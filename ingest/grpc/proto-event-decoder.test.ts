import { create, fromBinary, ScalarType, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { EventSchema, type Event } from './gen/clearml/events/v1/events_ingest_pb.js';
import { decodeProtoEvent } from './proto-event-decoder.js';

/** Decodes what the server would see: the event after a trip over the wire. */
function decodeSent(init: MessageInitShape<typeof EventSchema>): Record<string, unknown> {
  const bytes = toBinary(EventSchema, create(EventSchema, init));
  return decodeProtoEvent(fromBinary(EventSchema, bytes));
}

function sampleScalar(type: ScalarType): unknown {
  if (type === ScalarType.STRING) return 's';
  if (type === ScalarType.BOOL) return true;
  if (type === ScalarType.SINT64) return 1n;
  return 1;
}

describe('decodeProtoEvent', () => {
  it('maps every field to its events.md §1.2 JSON name', () => {
    expect(
      decodeSent({
        type: 'training_stats_scalar',
        task: 't1',
        model: 'm1',
        modelEvent: true,
        allowLocked: true,
        timestamp: { case: 'timestampMs', value: 1718000000123.5 },
        iter: 120n,
        metric: 'loss',
        variant: 'train',
        worker: 'gpu-7',
        value: 0.4132,
        values: [0.1, 0.5],
        xAxisLabel: 'epoch',
        url: 'https://files/x.jpeg',
        key: 'k/x.jpeg',
        plotStr: '{"data": []}',
        skipValidation: true,
        level: 'info',
        msg: 'line 1\nline 2',
      }),
    ).toEqual({
      type: 'training_stats_scalar',
      task: 't1',
      model: 'm1',
      model_event: true,
      allow_locked: true,
      timestamp: 1718000000123.5,
      iter: 120,
      metric: 'loss',
      variant: 'train',
      worker: 'gpu-7',
      value: 0.4132,
      values: [0.1, 0.5],
      x_axis_label: 'epoch',
      url: 'https://files/x.jpeg',
      key: 'k/x.jpeg',
      plot_str: '{"data": []}',
      skip_validation: true,
      level: 'info',
      msg: 'line 1\nline 2',
    });
  });

  it('leaves unsent fields out, so the session applies its defaults and errors', () => {
    expect(decodeSent({})).toEqual({});
  });

  it('keeps sent empty and zero values, which differ from absent ones', () => {
    expect(
      decodeSent({
        type: '',
        task: '',
        metric: '',
        worker: '',
        iter: 0n,
        value: 0,
        modelEvent: false,
        allowLocked: false,
      }),
    ).toEqual({
      type: '',
      task: '',
      metric: '',
      worker: '',
      iter: 0,
      value: 0,
      model_event: false,
      allow_locked: false,
    });
  });

  it('passes non-finite values on for the session to reject', () => {
    expect(decodeSent({ value: Number.NaN }).value).toBeNaN();
    expect(decodeSent({ values: [1, Number.POSITIVE_INFINITY] }).values).toEqual([1, Number.POSITIVE_INFINITY]);
  });

  it('takes the timestamp from either oneof member', () => {
    expect(decodeSent({ timestamp: { case: 'timestampMs', value: 1718000000000 } })).toEqual({
      timestamp: 1718000000000,
    });
    expect(decodeSent({ timestamp: { case: 'timestampText', value: '2024-06-10T06:13:20Z' } })).toEqual({
      timestamp: '2024-06-10T06:13:20Z',
    });
    expect(decodeSent({ timestamp: { case: 'timestampText', value: '1718000000000' } })).toEqual({
      timestamp: '1718000000000',
    });
  });

  it('turns iter into a JS number, rounding beyond 2^53 like JSON parsing does', () => {
    expect(decodeSent({ iter: -5n })).toEqual({ iter: -5 });
    expect(decodeSent({ iter: 2n ** 53n + 1n })).toEqual({ iter: 2 ** 53 });
    // The largest sint64 rounds to 2^63, which the session rejects (events.md §1.3 step 7).
    expect(decodeSent({ iter: 2n ** 63n - 1n })).toEqual({ iter: 2 ** 63 });
    expect(decodeSent({ iter: -(2n ** 63n) })).toEqual({ iter: -(2 ** 63) });
  });

  it('sends values when non-empty, or empty when values_present says so', () => {
    expect(decodeSent({ values: [1, 2] })).toEqual({ values: [1, 2] });
    expect(decodeSent({ values: [], valuesPresent: true })).toEqual({ values: [] });
    expect(decodeSent({ values: [] })).toEqual({});
    expect(decodeSent({ values: [3], valuesPresent: false })).toEqual({ values: [3] });
  });

  it('covers every field of the Event message', () => {
    // Guards against a field added to the .proto but not to the decoder:
    // the JSON names of events.md §1.2 are the proto field names, except the
    // timestamp oneof members (one JSON field) and the values_present flag.
    const full = create(EventSchema, {
      timestamp: { case: 'timestampText', value: 'x' },
      values: [1],
      valuesPresent: true,
    }) as unknown as Record<string, unknown>;
    for (const field of EventSchema.fields) {
      if (field.fieldKind !== 'scalar' || field.oneof !== undefined || field.localName === 'valuesPresent') continue;
      full[field.localName] = sampleScalar(field.scalar);
    }
    const decoded = decodeProtoEvent(full as unknown as Event);
    const expected = EventSchema.fields
      .map((field) => (field.oneof?.name === 'timestamp' ? 'timestamp' : field.name))
      .filter((name) => name !== 'values_present');
    expect(Object.keys(decoded).sort()).toEqual([...new Set(expected)].sort());
  });
});
