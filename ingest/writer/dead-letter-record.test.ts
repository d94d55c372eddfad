import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventEncoder } from '../../ingest/events/event-encoder.js';
import type { NormalizedEvent } from '../../ingest/events/event-normalizer.js';
import { decodeRecords, frameRecord } from '../../shared/events/wire-format.js';
import { payloadOrigin, recordOrigin } from './dead-letter-record.js';
import { normalizedEvent } from './normalized-event-test-harness.js';

const event = (over: Partial<NormalizedEvent>): NormalizedEvent =>
  normalizedEvent({
    type: 'training_stats_scalar',
    entity: 'e',
    iter: 1,
    timestamp: 1,
    metric: 'm',
    variant: 'v',
    worker: 'w',
    value: 1,
    ...over,
  });

/** Text with what line protocol and tag encoding must escape, and non-ASCII. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\n', '\r', '\t', '\\', ',', '=', ' ', '~', '"', "'", '\u0000', '\u001f', 'é', '𝄞'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 30,
});
const origin = (record: string) => recordOrigin([...decodeRecords(record)][0]!);

describe('recordOrigin', () => {
  it('reads company, namespace and entity back from any point the production encoder makes', () => {
    fc.assert(
      fc.property(
        text,
        text,
        text,
        text,
        text,
        fc.constantFrom<'t' | 'm'>('t', 'm'),
        fc.constantFrom('training_stats_scalar', 'training_debug_image'),
        (company, entity, metric, variant, key, namespace, type) => {
          const encoder = new EventEncoder(company, 1_700_000_000_000);
          const record = encoder.point(
            event({
              type: type as NormalizedEvent['type'],
              namespace,
              entity,
              metric,
              variant,
              key: type === 'training_debug_image' ? key : undefined,
            }),
          );
          expect(origin(record)).toEqual({ company, namespace, entity });
        },
      ),
    );
  });

  it('reads log and summary records, and names nobody for what it cannot read', () => {
    fc.assert(
      fc.property(text, text, (company, entity) => {
        expect(origin(new EventEncoder(company, 1).log(event({ type: 'log', entity, msg: 'x' })))).toEqual({
          company,
          namespace: 't',
          entity,
        });
        expect(
          origin(frameRecord('R', JSON.stringify({ c: company, n: 'm', e: entity, scalars: [], listing: [] }))),
        ).toEqual({ company, namespace: 'm', entity });
      }),
    );
    expect(origin(frameRecord('L', '[1,'))).toEqual({});
    expect(origin(frameRecord('R', '{"n":"x"}'))).toEqual({});
    expect(payloadOrigin('X12:not a record')).toEqual({});
    fc.assert(
      fc.property(fc.string(), (payload) => {
        expect(() => payloadOrigin(payload)).not.toThrow();
      }),
    );
  });
});
