import { describe, expect, it } from 'vitest';
import { compareNewestFirst } from './get-scalar-metric-data.js';

describe('compareNewestFirst', () => {
  it('orders by iteration descending, no iteration last, then timestamp and arrival descending', () => {
    const items = [
      { i: 1, ts: 5, q: 1 },
      { i: null, ts: 9, q: 2 },
      { i: 3, ts: 1, q: 3 },
      { i: 3, ts: 2, q: 4 },
      { i: 3, ts: 2, q: 5 },
      { i: -2147483648, ts: 0, q: 6 },
    ];
    expect([...items].sort(compareNewestFirst).map((p) => p.q)).toEqual([5, 4, 3, 1, 6, 2]);
  });
});
