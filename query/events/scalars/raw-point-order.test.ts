import { describe, expect, it } from 'vitest';
import { pageLength, sortTies } from './raw-point-order.js';

const xs = (...values: number[]) => values.map((x) => ({ x }));

describe('pageLength', () => {
  it('takes the batch plus the rest of the last x', () => {
    expect(pageLength(xs(1, 2, 2, 2, 3), 2)).toBe(4);
    expect(pageLength(xs(1, 2, 3), 2)).toBe(2);
    expect(pageLength(xs(0, 0, 0), 1)).toBe(3);
    expect(pageLength(xs(1), 5)).toBe(1);
    expect(pageLength([], 5)).toBe(0);
  });
});

describe('sortTies', () => {
  it('orders points of one x by timestamp then arrival, leaving x order alone', () => {
    const p = (x: number, ts: number, seq: number) => ({ variant: `${x}/${ts}/${seq}`, x, y: 0, ts, seq });
    const points = [p(1, 5, 1), p(2, 9, 2), p(2, 3, 3), p(2, 3, 1), p(3, 0, 0)];
    sortTies(points);
    expect(points.map((q) => q.variant)).toEqual(['1/5/1', '2/3/1', '2/3/3', '2/9/2', '3/0/0']);
  });

  it('gives what a full sort by x, timestamp, arrival gives, for runs of every length and order', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const points = Array.from({ length: 2000 }, (_, i) => ({
      variant: `p${i}`,
      x: Math.floor(i / (1 + (i % 13))),
      y: 0,
      ts: next() % 5,
      seq: next(),
    }));
    points.sort((a, b) => a.x - b.x);
    const expected = [...points].sort((a, b) => a.x - b.x || a.ts - b.ts || a.seq - b.seq).map((q) => q.variant);
    sortTies(points);
    expect(points.map((q) => q.variant)).toEqual(expected);
  });
});
