// A plot body's bucket (docs/storage.md): the writer computes it from the event's iteration, a
// reader from the time InfluxDB answers; both must name the same series for every iteration.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iterFromTime, iterTimeText, NO_ITER_BUCKET, plotBodyBucket } from './storage-layout.js';

/** What a reader holds: the stored time as JSON.parse reads InfluxDB's answer. */
const readBack = (iter: number | undefined): number | undefined =>
  iterFromTime(JSON.parse(iterTimeText(iter)) as number);

describe('plotBodyBucket', () => {
  it('groups 16 iterations, rounding down below zero', () => {
    expect([0, 15, 16, 31, 32].map((i) => plotBodyBucket(i))).toEqual(['0', '0', '1', '1', '2']);
    expect([-1, -16, -17].map((i) => plotBodyBucket(i))).toEqual(['-1', '-1', '-2']);
  });

  it('gives the plot without an iteration a bucket of its own', () => {
    expect(plotBodyBucket(undefined)).toBe(NO_ITER_BUCKET);
    expect(plotBodyBucket(readBack(undefined))).toBe(NO_ITER_BUCKET);
  });

  it('is the same from the iteration sent and from the time read back, clamped iterations included', () => {
    const iterations = fc.oneof(
      fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
      fc.double({ min: -1e20, max: 1e20, noNaN: true }).map(Math.trunc),
      fc.constantFrom(2 ** 53 + 2, 2 ** 63, -(2 ** 63), 9.3e18, -9.3e18, Number.MAX_SAFE_INTEGER),
    );
    fc.assert(
      fc.property(iterations, (iter) => {
        expect(plotBodyBucket(readBack(iter))).toBe(plotBodyBucket(iter));
      }),
      { numRuns: 2000 },
    );
  });
});
