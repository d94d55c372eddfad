// The index-based trims give what the regular expressions they replace gave, on generated strings.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimChar, trimEndChar } from './trim-char.js';

const text = fc.string({ unit: fc.constantFrom('/', '\n', 'a', ' ', '.', '\r', 'é', '😀'), maxLength: 40 });

describe('trimEndChar and trimChar', () => {
  it('answer what /c+$/ and /^c+|c+$/g replaced by nothing answer', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('/', '\n'), (value, char) => {
        const c = char === '/' ? '\\/' : '\\n';
        expect(trimEndChar(value, char)).toBe(value.replace(new RegExp(`${c}+$`), ''));
        expect(trimChar(value, char)).toBe(value.replace(new RegExp(`^${c}+|${c}+$`, 'g'), ''));
      }),
      { numRuns: 2000 },
    );
  });
});
