// events.md §1.11: what one request changes on an entity record, computed at ingest; the sums
// and means of huge but finite values must stay finite (Infinity cannot be stored or read back).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeEvent, type NormalizedEvent } from './event-normalizer.js';
import { EntitySummaryBuilder } from './request-summary.js';

const context = { receivedAt: 1_718_000_000_000, defaultWorker: 'w', allowLockedDefault: false };

function scalar(value: number, iter?: number): NormalizedEvent {
  const result = normalizeEvent(
    { type: 'training_stats_scalar', task: 't1', metric: 'm', variant: 'v', value, iter },
    context,
  );
  return result.event!;
}

function statsOf(values: number[]) {
  const builder = new EntitySummaryBuilder('c', 't', 't1');
  values.forEach((value, i) => builder.add(scalar(value, i)));
  return builder.build('u', context.receivedAt).scalars[0]!;
}

describe('scalar statistics of a request', () => {
  it('sum and mean of ordinary values are the plain ones', () => {
    const stats = statsOf([0.1, 0.2, 0.4]);
    expect(stats).toMatchObject({
      count: 3,
      sum: 0.1 + 0.2 + 0.4,
      mean: (0.1 + 0.2 + 0.4) / 3,
      min: 0.1,
      max: 0.4,
      first: 0.1,
      value: 0.4,
    });
  });

  it.each([
    [[1e308, 1e308], 1e308],
    [[Number.MAX_VALUE, Number.MAX_VALUE, Number.MAX_VALUE], Number.MAX_VALUE],
    [[-Number.MAX_VALUE, -Number.MAX_VALUE], -Number.MAX_VALUE],
    [[1e308, 1e308, -1e308], 1e308 / 3],
  ])('values %j: the mean is %d, sum and mean finite', (values, mean) => {
    const stats = statsOf(values);
    expect(Number.isFinite(stats.sum)).toBe(true);
    expect(Number.isFinite(stats.mean)).toBe(true);
    expect(stats.mean).toBeCloseTo(mean, -300);
    expect(Math.abs(stats.mean! / mean - 1)).toBeLessThan(1e-12);
  });

  it('the mean stays within [min, max] despite rounding, and never is -0', () => {
    expect(statsOf([0.1, 0.1, 0.1]).mean).toBe(0.1);
    expect(Object.is(statsOf([-5e-324, 0, 0]).mean, 0)).toBe(true);
  });

  it('any finite values: every number of the summary is finite, the mean lies within [min, max]', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 50 }),
        (values) => {
          const stats = statsOf(values);
          for (const n of [stats.sum, stats.mean, stats.min, stats.max, stats.first, stats.value])
            expect(Number.isFinite(n)).toBe(true);
          expect(stats.mean).toBeGreaterThanOrEqual(stats.min);
          expect(stats.mean).toBeLessThanOrEqual(stats.max);
          // The summary travels as JSON: it must parse back to the same numbers.
          expect(JSON.parse(JSON.stringify(stats))).toEqual(stats);
        },
      ),
      { numRuns: 500 },
    );
  });
});
