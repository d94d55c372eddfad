import { describe, expect, it } from 'vitest';
import { pageLength, seriesOfPage, seriesOfPoints, sortTies, type RawPoint } from './raw-point-order.js';

const xs = (...values: number[]) => values;

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

describe('seriesOfPage', () => {
  const columns = (points: RawPoint[]) => {
    const asked: number[] = [];
    return {
      asked,
      page: {
        length: points.length,
        x: points.map((p) => p.x),
        y: points.map((p) => p.y),
        variant: points.map((p) => p.variant),
        arrival: (i: number) => {
          asked.push(i);
          return { ts: points[i]!.ts, seq: points[i]!.seq };
        },
      },
    };
  };

  it('groups by variant as the sorted page would, reading arrivals only where first points share an x', () => {
    const p = (variant: string, x: number, ts: number, seq: number): RawPoint => ({ variant, x, y: x * 10, ts, seq });
    // InfluxDB order within an x is not the answer's: b's first point comes before a's by timestamp.
    const points = [p('a', 1, 9, 1), p('b', 1, 3, 2), p('a', 2, 0, 3), p('c', 2, 0, 4), p('b', 3, 1, 5)];
    const { page, asked } = columns(points);
    expect(seriesOfPage(page)).toEqual(seriesOfPoints([...points]));
    expect(seriesOfPage(page).map((s) => s.variant)).toEqual(['b', 'a', 'c']);
    expect(asked.sort()).toEqual([0, 0, 1, 1]);
  });

  it('gives what grouping the whole sorted page gives, for random pages with shared x values', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const points: RawPoint[] = [];
      for (let x = 0; x < 30; x++)
        for (const v of ['0', '1', '2', 'a', 'b', '__proto__'])
          if (next() % 3 > 0) points.push({ variant: v, x: x + (next() % 2), y: next(), ts: next() % 4, seq: next() });
      // InfluxDB order: by x; whatever order within an x; at most one point per variant and x.
      const seen = new Set<string>();
      const page = points
        .sort((a, b) => a.x - b.x || (next() % 3) - 1)
        .filter((q) => !seen.has(`${q.variant}/${q.x}`) && seen.add(`${q.variant}/${q.x}`));
      expect(seriesOfPage(columns(page).page)).toEqual(seriesOfPoints([...page]));
    }
  });

  it('sorts the page whole when a variant has two points at one x', () => {
    const points: RawPoint[] = [
      { variant: 'a', x: 1, y: 1, ts: 5, seq: 2 },
      { variant: 'a', x: 1, y: 2, ts: 5, seq: 1 },
    ];
    expect(seriesOfPage(columns(points).page)).toEqual([{ variant: 'a', x: [1, 1], y: [2, 1] }]);
  });
});
