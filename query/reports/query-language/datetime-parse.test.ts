// A numeric date-time (epoch seconds) is recognised as it was before its pattern was made linear.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDateTime } from './datetime-parse.js';

/** The pattern until 2026-12-02 (`\d+\.?\d*` rescanned a run of digits: 2.8 s for 40,000). */
const REFERENCE = /^[+-]?(?:\d+\.?\d*|\.\d+)$/;

describe('parseDateTime of generated numeric texts', () => {
  it('reads as epoch seconds exactly the texts the reference pattern matched', () => {
    const text = fc.string({ unit: fc.constantFrom('0', '7', '.', '+', '-', 'e', ' ', 'x'), maxLength: 12 });
    fc.assert(
      fc.property(text, (value) => {
        const trimmed = value.trim();
        if (REFERENCE.test(trimmed)) expect(parseDateTime(value)).toBe(Number(trimmed) * 1000);
        else expect(parseDateTime(value)).toBeUndefined(); // none of these texts is an ISO date
      }),
      { numRuns: 5000 },
    );
  });
});
