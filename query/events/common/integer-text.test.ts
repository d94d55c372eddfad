import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeIntegerText } from './integer-text.js';

describe('safeIntegerText', () => {
  it('writes every safe integer as String does', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(safeIntegerText(n)).toBe(String(n));
      }),
      { numRuns: 20_000 },
    );
  });

  it('at the edges: 32-bit bounds, powers of ten and their neighbours, the safe bounds, -0', () => {
    const edges = [0, -0, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53 - 1)];
    for (let p = 9; p <= 15; p++) for (const d of [-1, 0, 1]) edges.push(10 ** p + d, -(10 ** p + d));
    // Multiples of 1e9 minus one, where the division rounds up to the next integer.
    for (let k = 1; k < 9_007_199; k = k * 3 + 1) edges.push(k * 1e9 - 1, k * 1e9, k * 1e9 + 1);
    for (const n of edges.filter(Number.isSafeInteger)) expect(safeIntegerText(n)).toBe(String(n));
  });
});
