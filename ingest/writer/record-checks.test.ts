import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../ingest/events/event-normalizer.js';
import { EntitySummaryBuilder } from '../../ingest/events/request-summary.js';
import { normalizedEvent } from './normalized-event-test-harness.js';
import { checkLogBody, checkSummary } from './record-checks.js';
import { requestMean } from './summary-calls.js';

const scalarEvent = (metric: string, iter: number | undefined, value: number, timestamp: number): NormalizedEvent =>
  normalizedEvent({ type: 'training_stats_scalar', entity: 'e', iter, timestamp, metric, variant: 'v', value });

/** Any finite double, with the extremes (where sums overflow) well represented. */
const value = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE, 0.1, 0),
);
const events = fc.array(
  fc.tuple(
    fc.constantFrom('loss', 'acc', ''),
    fc.option(fc.integer({ min: -1e6, max: 1e6 }), { nil: undefined }),
    value,
    fc.integer({ min: 0, max: 2e12 }),
  ),
  {
    minLength: 1,
    maxLength: 30,
  },
);

describe('checkSummary', () => {
  it('accepts every summary the ingest builder makes, after the JSON trip through the wire', () => {
    fc.assert(
      fc.property(events, (list) => {
        const builder = new EntitySummaryBuilder('co', 't', 'e');
        for (const [metric, iter, v, ts] of list) builder.add(scalarEvent(metric, iter, v, ts));
        const wire = JSON.parse(JSON.stringify(builder.build('u', 1)));
        expect(typeof checkSummary(wire)).toBe('object');
        for (const stats of wire.scalars) {
          // The mean the writer applies is finite and between the extremes, whatever the sum did.
          const mean = requestMean(stats);
          expect(Number.isFinite(mean)).toBe(true);
          expect(mean).toBeGreaterThanOrEqual(stats.min);
          expect(mean).toBeLessThanOrEqual(stats.max);
        }
      }),
    );
  });

  it("carries the greatest iteration of the request's InfluxDB events, every type but log (null when none has one)", () => {
    const builder = new EntitySummaryBuilder('co', 't', 'e');
    expect(builder.build('u', 1).maxIter).toBeNull();
    builder.add(normalizedEvent({ type: 'log', entity: 'e', iter: 900, timestamp: 1, metric: '', variant: '' }));
    builder.add(scalarEvent('loss', undefined, 1, 1));
    expect(builder.build('u', 1).maxIter).toBeNull();
    builder.add(scalarEvent('Summary', -2147483648, 1, 1));
    expect(builder.build('u', 1).maxIter).toBe(-2147483648);
    builder.add(scalarEvent(':monitor:machine', 500, 1, 1));
    builder.add(
      normalizedEvent({
        type: 'training_debug_image',
        entity: 'e',
        iter: 70,
        timestamp: 1,
        metric: 'i',
        variant: 'v',
        url: 'u',
      }),
    );
    builder.add(scalarEvent('loss', 3, 1, 1));
    // Unlike last_iteration, the ignored metrics count and logs do not.
    expect(builder.build('u', 1)).toMatchObject({ maxIter: 500, lastIter: 900 });
  });

  it('accepts the image index uses the builder makes, whatever the keys and urls, and refuses malformed ones', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.string(), fc.integer({ min: -5, max: 40 }))), (images) => {
        const builder = new EntitySummaryBuilder('co', 't', 'e');
        for (const [key, url, iter] of images)
          builder.add(
            normalizedEvent({
              type: 'training_debug_image',
              entity: 'e',
              iter,
              timestamp: 1,
              metric: 'i',
              variant: 'v',
              key,
              url,
            }),
          );
        expect(typeof checkSummary(JSON.parse(JSON.stringify(builder.build('u', 1))))).toBe('object');
      }),
    );
    const base = { c: 'co', n: 't', e: 'e', at: 1, scalars: [], listing: [] };
    const entry = { m: 'i', v: 'v', it: [['3', [['k', 'u']]]], u: [['u', '3', 'k', false]] };
    expect(typeof checkSummary({ ...base, images: [entry] })).toBe('object');
    for (const bad of [
      { ...entry, it: [['3.5', [['k', 'u']]]] },
      { ...entry, it: [['3', [['k\u001f', 'u']]]] },
      { ...entry, it: [['3', [['k', false]]]] },
      { ...entry, u: [['u', '3', 'k\u001f', false]] },
      { ...entry, u: [['u', '3', 'k', 2]] },
      { ...entry, b: 7 },
      { ...entry, o: true },
      { m: 'i', it: [], u: [] },
    ])
      expect(checkSummary({ ...base, images: [bad] })).toMatch(/^images entry 0 /);
    expect(checkSummary({ ...base, images: {} })).toBe('images is not an array');
  });

  it('keeps the exact sum / count whenever the sum is finite', () => {
    const builder = new EntitySummaryBuilder('co', 't', 'e');
    for (const v of [0.1, 0.2, 0.3]) builder.add(scalarEvent('loss', 1, v, 1));
    const [stats] = builder.build('u', 1).scalars;
    expect(stats!.mean).toBe(stats!.sum / stats!.count);
    expect(requestMean(stats!)).toBe((0.1 + 0.2 + 0.3) / 3);
  });

  it('carries the mean when the sum overflows', () => {
    const builder = new EntitySummaryBuilder('co', 't', 'e');
    for (const v of [1e308, 1e308, 1e308, -1e308]) builder.add(scalarEvent('loss', 1, v, 1));
    const wire = JSON.parse(JSON.stringify(builder.build('u', 1)));
    expect(wire.scalars[0].sum).toBe(Number.MAX_VALUE); // clamped: JSON cannot carry Infinity
    expect(wire.scalars[0].mean).toBeCloseTo(0.5e308, -293);
    expect(requestMean(wire.scalars[0])).toBe(wire.scalars[0].mean);
  });

  it('refuses summaries a store call could not be built from', () => {
    const good = { c: 'co', n: 't', e: 'e', u: 'u', at: 1, scalars: [], listing: [] };
    const scalar = {
      metric: 'm',
      variant: 'v',
      value: 1,
      iter: 1,
      timestamp: 1,
      min: 1,
      minIter: 1,
      max: 1,
      maxIter: 1,
      first: 1,
      firstIter: 1,
      count: 1,
      sum: 1,
    };
    expect(checkSummary(good)).toEqual(good);
    expect(typeof checkSummary({ ...good, scalars: [scalar] })).toBe('object');
    expect(checkSummary({ ...good, maxIter: null })).toEqual({ ...good, maxIter: null });
    for (const bad of [
      null,
      [],
      { ...good, n: 'x' },
      { ...good, at: null },
      { ...good, maxIter: '3' },
      { ...good, listing: [['a', 'b', 'c', 2]] },
      { ...good, listing: [null] },
    ]) {
      expect(typeof checkSummary(bad), JSON.stringify(bad)).toBe('string');
    }
    for (const [field, v] of [
      ['value', null],
      ['min', '1'],
      ['count', 0],
      ['count', 1.5],
      ['iter', 'x'],
      ['metric', 1],
      ['sum', '1'],
      ['mean', null],
      ['x_axis_label', 1],
    ] as const) {
      expect(typeof checkSummary({ ...good, scalars: [{ ...scalar, [field]: v }] }), `${field}=${String(v)}`).toBe(
        'string',
      );
    }
    fc.assert(
      fc.property(fc.anything(), (v) => {
        expect(['string', 'object']).toContain(typeof checkSummary(v));
      }),
    );
  });
});

describe('checkLogBody', () => {
  it('accepts a header line [company, task, timestamp] followed by the event JSON, taken as it is', () => {
    expect(checkLogBody('["co","t",1]\n{"msg":"a\\nb"}')).toEqual(['co', 't', 1, '{"msg":"a\\nb"}']);
    for (const bad of ['["co","t","1"]\n{}', '["co","t"]\n{}', '["co",1,1]\n{}', '{}\n{}', 'x\n{}', '["co","t",1]\n'])
      expect(typeof checkLogBody(bad)).toBe('string');
  });

  it('accepts the earlier form, [company, task, timestamp, event JSON] in one array, only', () => {
    expect(checkLogBody(JSON.stringify(['co', 't', 1, '{}']))).toEqual(['co', 't', 1, '{}']);
    for (const bad of [null, {}, ['co', 't', '1', '{}'], ['co', 't', 1], ['co', 1, 1, '{}'], ['co', 't', 1, {}]])
      expect(typeof checkLogBody(JSON.stringify(bad))).toBe('string');
    expect(typeof checkLogBody('[1,')).toBe('string');
  });
});
