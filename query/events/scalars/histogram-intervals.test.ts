import { describe, expect, it } from 'vitest';
import {
  bucketKey,
  bucketMeans,
  groupedSeriesIntervals,
  seriesInterval,
  type SeriesStats,
} from './histogram-intervals.js';

const series = (metric: string, variant: string, count: number, minX: number, maxX: number): SeriesStats => ({
  metric,
  variant,
  count,
  minX,
  maxX,
});

describe('worked example of §4.1 (v = i at iterations 0..99)', () => {
  const xs = Array.from({ length: 100 }, (_, i) => i);
  const points = { x: xs, y: xs };
  const stats = series('m', 'v', 100, 0, 99);

  it.each([2000, 100])('samples %i: interval 1, 100 points', (samples) => {
    const interval = groupedSeriesIntervals([stats], samples).get(stats)!;
    expect(interval).toBe(1);
    const result = bucketMeans(points, interval);
    expect(result.x).toEqual(xs);
    expect(result.y).toEqual(xs);
  });

  it('samples 10: interval 10, x = 0, 10, ..., 90 and y = 4.5, ..., 94.5', () => {
    const interval = groupedSeriesIntervals([stats], 10).get(stats)!;
    expect(interval).toBe(10);
    const result = bucketMeans(points, interval);
    expect(result.x).toEqual([0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(result.y).toEqual([4.5, 14.5, 24.5, 34.5, 44.5, 54.5, 64.5, 74.5, 84.5, 94.5]);
  });

  it('samples 0: every point', () => {
    expect(groupedSeriesIntervals([stats], 0).get(stats)).toBe(1);
  });
});

describe('seriesInterval', () => {
  it('uses interval 1 when there are fewer points than samples', () => {
    expect(seriesInterval({ count: 5, minX: 0, maxX: 1_000_000 }, 10)).toEqual({ interval: 1, expected: 5 });
  });

  it('divides the range by samples, rounding up', () => {
    expect(seriesInterval({ count: 1000, minX: 0, maxX: 1000 }, 100)).toEqual({ interval: 11, expected: 91 });
    expect(seriesInterval({ count: 1000, minX: -500, maxX: 499 }, 100)).toEqual({ interval: 10, expected: 100 });
  });

  it('stays exact for epoch-ms ranges', () => {
    const { interval, expected } = seriesInterval(
      { count: 6000, minX: 1_700_000_000_000, maxX: 1_718_000_000_000 },
      2000,
    );
    expect(interval).toBe(9_000_001);
    expect(expected).toBe(2000);
  });
});

describe('groupedSeriesIntervals', () => {
  it('joins a series whose interval is within 10% of the group start', () => {
    const a = series('a', 'x', 1000, 0, 999); // interval 10
    const b = series('b', 'x', 1100, 0, 1099); // interval 11
    const result = groupedSeriesIntervals([b, a], 100);
    expect(result.get(a)).toBe(11);
    expect(result.get(b)).toBe(11);
  });

  it('starts a new group above the upper bound', () => {
    const a = series('a', 'x', 1000, 0, 999); // 10, upper 11
    const b = series('b', 'x', 1200, 0, 1199); // 12
    const result = groupedSeriesIntervals([a, b], 100);
    expect(result.get(a)).toBe(10);
    expect(result.get(b)).toBe(12);
  });

  it('uses floor(interval * 0.1): small intervals only group with equals', () => {
    const a = series('a', 'x', 500, 0, 499); // 5, upper 5
    const b = series('b', 'x', 600, 0, 599); // 6
    const result = groupedSeriesIntervals([a, b], 100);
    expect(result.get(a)).toBe(5);
    expect(result.get(b)).toBe(6);
  });

  it('starts a new group when the expected points would exceed 6000', () => {
    const a = series('a', 'x', 30000, 0, 29999); // samples 3000: interval 10, expected 3000
    const b = series('b', 'x', 33000, 0, 32999); // interval 11, expected 3000
    const c = series('c', 'x', 33000, 0, 32999); // interval 11, expected 3000: 9000 > 6000
    const d = series('d', 'x', 36000, 0, 35999); // interval 12, joins c (upper 12)
    const result = groupedSeriesIntervals([d, c, b, a], 3000);
    expect(result.get(a)).toBe(11);
    expect(result.get(b)).toBe(11);
    expect(result.get(c)).toBe(12);
    expect(result.get(d)).toBe(12);
  });

  it('allows exactly 6000 expected points in a group', () => {
    const a = series('a', 'x', 30000, 0, 29999); // 10, expected 3000
    const b = series('b', 'x', 33000, 0, 32999); // 11, expected 3000: total 6000
    const result = groupedSeriesIntervals([a, b], 3000);
    expect(result.get(a)).toBe(11);
  });

  it('puts at most 50 series in a group, in metric then variant order', () => {
    const many = Array.from({ length: 51 }, (_, i) => series(`m${String(i).padStart(2, '0')}`, 'v', 10, 0, 9)); // interval 1, expected 10
    const last = series('zz', 'v', 20, 0, 19); // interval 1 with samples 10? 20 >= 10 -> ceil(20/10) = 2
    const result = groupedSeriesIntervals([last, ...many].reverse(), 10);
    // 51 series of interval 1: the first 50 by name form one group, m50 starts another, which zz (interval 2 > upper 1) does not join
    expect(result.get(many[0]!)).toBe(1);
    expect(result.get(many[50]!)).toBe(1);
    expect(result.get(last)).toBe(2);

    const joinable = Array.from({ length: 50 }, (_, i) => series(`m${String(i).padStart(2, '0')}`, 'v', 100, 0, 99)); // samples 10: interval 10
    const big = series('a', 'v', 110, 0, 109); // interval 11, sorts after the interval-10 series
    const grouped = groupedSeriesIntervals([big, ...joinable], 10);
    // the 50 interval-10 series fill a group, so `big` is alone despite being within 10%
    expect(grouped.get(joinable[0]!)).toBe(10);
    expect(grouped.get(big)).toBe(11);
  });

  it('orders equal intervals by metric, then variant (code-point order)', () => {
    const mk = (metric: string, variant: string) => series(metric, variant, 30000, 0, 29999); // 10, expected 3000
    const later = series('a', 'b', 33000, 0, 32999); // 11, expected 3000
    const x = mk('b', 'a');
    const y = mk('a', 'z');
    // y (a/z) then x (b/a) fill 6000; `later` starts its own group
    const result = groupedSeriesIntervals([x, later, y], 3000);
    expect(result.get(y)).toBe(10);
    expect(result.get(x)).toBe(10);
    expect(result.get(later)).toBe(11);
  });
});

describe('bucketKey', () => {
  it('floors toward minus infinity', () => {
    expect(bucketKey(7, 5)).toBe(5);
    expect(bucketKey(-1, 5)).toBe(-5);
    expect(bucketKey(-5, 5)).toBe(-5);
    expect(bucketKey(-6, 5)).toBe(-10);
    expect(Object.is(bucketKey(0, 5), 0)).toBe(true);
    expect(bucketKey(-2147483648, 1000)).toBe(-2147484000);
  });

  it('is exact near 2^53', () => {
    const big = Number.MAX_SAFE_INTEGER; // 9007199254740991
    expect(bucketKey(big, 10)).toBe(9007199254740990);
    expect(bucketKey(-big, 10)).toBe(-9007199254741000);
    expect(bucketKey(big, 3)).toBe(big - (big % 3));
  });

  it('aligns timestamps to the epoch', () => {
    expect(bucketKey(1718000000123, 1000)).toBe(1718000000000);
  });
});

describe('bucketMeans', () => {
  it('averages values whose sum overflows a double, and keeps the exact mean of others', () => {
    const huge = 2 ** 1023;
    const result = bucketMeans({ x: [0, 1, 2, 3, 10, 11], y: [huge, huge, huge, -huge, 0.1, 0.2] }, 10);
    expect(result.y).toEqual([huge / 2, (0.1 + 0.2) / 2]);
    expect(bucketMeans({ x: [0, 1], y: [-Number.MAX_VALUE, -Number.MAX_VALUE] }, 10).y).toEqual([-Number.MAX_VALUE]);
  });

  it('handles unordered and negative x', () => {
    const result = bucketMeans({ x: [4, -3, 3, -7, -3], y: [1, 2, 3, 4, 6] }, 5);
    expect(result).toEqual({ x: [-10, -5, 0], y: [4, 4, 2] });
  });

  it('reports min and max per bucket on request', () => {
    const result = bucketMeans({ x: [0, 1, 2, 10], y: [3, -1, 4, 7] }, 10, { withMinMax: true });
    expect(result).toEqual({ x: [0, 10], y: [2, 7], min: [-1, 7], max: [4, 7] });
  });

  it('gives the mean of values reported at the same iteration with interval 1', () => {
    expect(bucketMeans({ x: [1, 1, 2], y: [1, 2, 5] }, 1)).toEqual({ x: [1, 2], y: [1.5, 5] });
  });

  it('returns nothing for no points', () => {
    expect(bucketMeans({ x: [], y: [] }, 3)).toEqual({ x: [], y: [] });
  });
});
