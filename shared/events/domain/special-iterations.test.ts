import { describe, expect, it } from 'vitest';
import { countsForHistogram, DEFAULT_IGNORED_ITERATION_METRICS, SINGLE_VALUE_ITER } from './special-iterations.js';

describe('special iterations', () => {
  it('is -(2^31)', () => {
    expect(SINGLE_VALUE_ITER).toBe(-(2 ** 31));
  });

  it('counts for histograms only iterations above -2^31', () => {
    expect(countsForHistogram(SINGLE_VALUE_ITER)).toBe(false);
    expect(countsForHistogram(SINGLE_VALUE_ITER - 1)).toBe(false);
    expect(countsForHistogram(SINGLE_VALUE_ITER + 1)).toBe(true);
    expect(countsForHistogram(-5)).toBe(true);
    expect(countsForHistogram(undefined)).toBe(false);
    expect(countsForHistogram(null)).toBe(false);
  });

  it('ignores the monitoring metrics by default', () => {
    expect(DEFAULT_IGNORED_ITERATION_METRICS).toEqual([':monitor:machine', ':monitor:gpu']);
  });
});
