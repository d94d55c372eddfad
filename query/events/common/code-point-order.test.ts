import { describe, expect, it } from 'vitest';
import { compareCodePoints, sortedByCodePoints } from './code-point-order.js';

describe('compareCodePoints', () => {
  it('orders like plain comparison within the BMP below surrogates', () => {
    expect(sortedByCodePoints(['b', 'a', 'B', 'ab', ''])).toEqual(['', 'B', 'a', 'ab', 'b']);
  });

  it('puts astral characters after U+E000..U+FFFF', () => {
    // UTF-16 order would put the emoji (D83D DE00) before U+FF21.
    expect(sortedByCodePoints(['😀', '\uFF21', '\uE000'])).toEqual(['\uE000', '\uFF21', '😀']);
    expect(compareCodePoints('😀', '😁')).toBeLessThan(0);
    expect(compareCodePoints('x😀', 'x\uFFFF')).toBeGreaterThan(0);
    expect(compareCodePoints('a', 'a')).toBe(0);
  });
});
