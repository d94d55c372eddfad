import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { echoText, headOf, MAX_ECHO_CHARS, pyRepr } from './python-repr.js';

describe('pyRepr', () => {
  it('renders JSON values as Python does', () => {
    expect(pyRepr(['t1', "it's", 'say "x"'])).toBe(`['t1', "it's", 'say "x"']`);
    expect(pyRepr({ a: 1, b: [true, null, 1.0, 2.5] })).toBe("{'a': 1, 'b': [True, None, 1, 2.5]}");
    expect(pyRepr('a\nb')).toBe("'a\\nb'");
  });

  it('renders null-prototype objects', () => {
    const value = Object.create(null) as Record<string, unknown>;
    value.k = 'v';
    expect(pyRepr(value)).toBe("{'k': 'v'}");
  });

  it('stops at the echo limit, whatever the size of the value', () => {
    const huge = 'x'.repeat(60 * 1024 * 1024);
    const text = pyRepr(huge);
    expect(text.length).toBe(MAX_ECHO_CHARS + 3);
    expect(text).toBe(`'${'x'.repeat(MAX_ECHO_CHARS - 1)}...`);
    expect(pyRepr(Array.from({ length: 1_000_000 }, (_, i) => i)).length).toBe(MAX_ECHO_CHARS + 3);
    expect(echoText(huge)).toBe(`${'x'.repeat(MAX_ECHO_CHARS)}...`);
    expect(echoText('short')).toBe('short');
  });

  it('does not walk deeper than its depth limit (no stack overflow)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const text = pyRepr(deep);
    expect(text.endsWith('...')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(MAX_ECHO_CHARS + 3);
  });
});

describe('headOf', () => {
  const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

  it('never cuts a surrogate pair: the cut of well-formed text is well-formed', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat({ max: 60 }), (text, limit) => {
        const head = headOf(text, limit);
        expect(text.startsWith(head)).toBe(true);
        expect(head.length === Math.min(text.length, limit) || head.length === limit - 1).toBe(true);
        expect(loneSurrogate.test(head)).toBe(false);
      }),
      { numRuns: 3000 },
    );
    expect(headOf('ab😀', 3)).toBe('ab');
    expect(headOf('ab😀', 4)).toBe('ab😀');
  });

  it('echoes of text cut at an emoji stay well-formed', () => {
    const text = `${'a'.repeat(MAX_ECHO_CHARS - 1)}😀`;
    expect(loneSurrogate.test(echoText(text))).toBe(false);
    expect(loneSurrogate.test(pyRepr(text))).toBe(false);
  });
});
