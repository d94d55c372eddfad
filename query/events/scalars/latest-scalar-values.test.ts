import { describe, expect, it } from 'vitest';
import { SINGLE_VALUE_ITER } from '../../../shared/events/domain/special-iterations.js';
import { compareLatestFirst, latestScalarMetrics, latestValues } from './latest-scalar-values.js';

describe('latestValues', () => {
  it('takes the first value and the means of the first 10 and 100', () => {
    const values = Array.from({ length: 150 }, (_, i) => i); // latest first
    expect(latestValues(values)).toEqual({ last_value: 0, last_10_value: 4.5, last_100_value: 49.5 });
  });

  it('uses fewer when fewer exist, zero and negative values included', () => {
    expect(latestValues([0, -2, 5])).toEqual({ last_value: 0, last_10_value: 1, last_100_value: 1 });
    expect(latestValues([])).toBeUndefined();
  });
});

describe('compareLatestFirst', () => {
  it('orders by iter descending, points without iter last, then timestamp descending', () => {
    const points = [
      { iter: 1, timestamp: 5, value: 0 },
      { timestamp: 99, value: 0 },
      { iter: 2, timestamp: 1, value: 0 },
      { iter: 1, timestamp: 7, value: 0 },
      { iter: SINGLE_VALUE_ITER, timestamp: 100, value: 0 },
    ];
    expect([...points].sort(compareLatestFirst)).toEqual([points[2], points[3], points[0], points[4], points[1]]);
  });
});

describe('latestScalarMetrics', () => {
  it('groups by metric and variant, ascending by name', () => {
    const result = latestScalarMetrics([
      { metric: 'loss', variant: 'val', iter: 1, timestamp: 1, value: 3 },
      { metric: 'loss', variant: 'train', iter: 2, timestamp: 1, value: 0.5 },
      { metric: 'loss', variant: 'train', iter: 1, timestamp: 1, value: 1.5 },
      { metric: 'acc', variant: 'x', iter: 0, timestamp: 1, value: 0.9 },
    ]);
    expect(result).toEqual([
      { name: 'acc', variants: [{ name: 'x', last_value: 0.9, last_10_value: 0.9, last_100_value: 0.9 }] },
      {
        name: 'loss',
        variants: [
          { name: 'train', last_value: 0.5, last_10_value: 1, last_100_value: 1 },
          { name: 'val', last_value: 3, last_10_value: 3, last_100_value: 3 },
        ],
      },
    ]);
  });

  it('counts single values like any other point', () => {
    const [metric] = latestScalarMetrics([
      { metric: 'Summary', variant: 'accuracy', iter: SINGLE_VALUE_ITER, timestamp: 1, value: 0.93 },
    ]);
    expect(metric!.variants[0]!.last_value).toBe(0.93);
  });
});
