/**
 * Hostile primitive values as fast-check arbitraries: strings of every kind
 * of character, numbers no store takes, prototype keys, JSON of any shape
 * and depth. Everything here is data; the request builders decide where it
 * goes.
 */
import fc from 'fast-check';
import { deepNest, KeyedObject, RawJson, type JsonTree } from './json-text.js';

export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

/** Characters that break naive parsers, key builders, logs and terminals. */
const NASTY_CHARS = [
  '\u0000',
  '\n',
  '\r',
  '\t',
  ' ',
  ':',
  '{',
  '}',
  '*',
  '?',
  '[',
  ']',
  '"',
  "'",
  '\\',
  '/',
  '.',
  ',',
  '=',
  '&',
  '%',
  '#',
  '$',
  '`',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF', // lone surrogates, and the last code point
  '\u202E',
  '\u200F',
  '\u061C', // RTL override, RTL mark, Arabic letter mark
  '\u200B',
  '\uFEFF',
  '\u0085',
  '\u2028',
  '\u2029', // zero width, BOM, NEL, line/paragraph separators
  '😀',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'é',
  'é',
  'ß',
  'İ',
  'ﬃ',
  '𝕏',
  '中',
  '\uFFFD',
  '\uFFFF',
  '\u001b[31m', // a terminal escape
];

export const nastyChar = fc.constantFrom(...NASTY_CHARS);

/** Short strings mixing ordinary and nasty characters. */
export const nastyString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 4 }) },
      { weight: 2, arbitrary: nastyChar },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** Very long strings, built by repetition (cheap to generate, large on the wire). */
export const longString: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(nastyString, fc.constantFrom('a', 'x', 'é', '😀', ':', '\u0000')),
    fc.constantFrom(129, 256, 1025, 4097, 65_537, 70_000),
  )
  .map(([unit, length]) =>
    (unit === '' ? 'a' : unit)
      .repeat(Math.ceil(length / Math.max(1, (unit === '' ? 'a' : unit).length)))
      .slice(0, length),
  );

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: nastyString },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'null',
      'None',
      'undefined',
      'NaN',
      'true',
      '0',
      '-1',
      '1e999',
      '[]',
      '{}',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
    ),
  },
  { weight: 1, arbitrary: longString },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

/** Number tokens written raw into JSON: beyond 2^53, beyond int64, beyond double, negative zero. */
export const NUMBER_TOKENS = [
  '1e999',
  '-1e999',
  '1e308',
  '-1e308',
  '1.7976931348623157e308',
  '4.9e-324',
  '-0',
  '-0.0',
  '0e0',
  '9007199254740993',
  '9223372036854775807',
  '9223372036854775808',
  '-9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '1e20',
  '1e16',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '123456789012345678901234567890',
  '0.1e-999',
  '1E+2',
  '1.0',
  '100000000000000000000000000000000000000000000',
];

/** Numbers as JSON numbers, as raw tokens, and as the strings that look like numbers. */
export const hostileNumber: fc.Arbitrary<JsonTree> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NUMBER_TOKENS).map((t) => new RawJson(t)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '1e999',
      '-1e999',
      'NaN',
      'nan',
      'Infinity',
      '-Infinity',
      'inf',
      '-0',
      '1e308',
      '9223372036854775808',
      '0x10',
      ' 12 ',
      '1_000',
      '١٢',
      '1e3',
      '',
    ),
  },
  { weight: 2, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.integer() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      2 ** 63,
      -(2 ** 63),
      1e308,
      -1e308,
      5e-324,
      2 ** 31,
      -(2 ** 31),
    ),
  },
);

/** An object holding a prototype key (as an own key: JSON.parse keeps `__proto__` as one). */
export const prototypeObject: fc.Arbitrary<KeyedObject> = fc
  .tuple(
    fc.constantFrom(...PROTOTYPE_KEYS),
    fc.constantFrom(
      'x',
      'polluted',
      'authorization',
      'x-clearml-act-as',
      'cookie',
      'toString',
      'length',
      'then',
      'company',
      'task',
      'type',
      'status',
    ),
    fc.oneof(
      fc.constant<JsonTree>('1'),
      fc.constant<JsonTree>(true),
      fc.constant<JsonTree>(null),
      fc.constant<JsonTree>(1),
    ),
  )
  .map(([proto, key, value]) => {
    const inner = new KeyedObject([[key, value]]);
    return proto === 'constructor'
      ? new KeyedObject([['constructor', new KeyedObject([['prototype', inner]])]])
      : new KeyedObject([[proto, inner]]);
  });

/** 10,000 deep (or deeper) JSON, as a value. */
export const deepJson: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(1_000, 10_000, 10_000, 50_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
  .map(([depth, kind]) => deepNest(depth, kind));

/** Any JSON value, hostile leaves included. */
export const anyJson: fc.Arbitrary<JsonTree> = fc.letrec<{ value: JsonTree }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 4, arbitrary: fc.constantFrom<JsonTree>(null, true, false, 0, 1, -1, '', []) },
    { weight: 4, arbitrary: hostileString },
    { weight: 3, arbitrary: hostileNumber },
    { weight: 1, arbitrary: prototypeObject },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    {
      weight: 2,
      arbitrary: fc
        .dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...PROTOTYPE_KEYS)), tie('value'), {
          maxKeys: 4,
        })
        .map((d) => new KeyedObject(Object.entries(d))),
    },
  ),
})).value;

/** A value of the wrong JSON type for a field expecting `kind`. */
export function wrongTypeFor(kind: 'string' | 'number' | 'bool' | 'list' | 'object'): fc.Arbitrary<JsonTree> {
  const candidates: Record<string, fc.Arbitrary<JsonTree>> = {
    string: hostileString,
    number: hostileNumber,
    bool: fc.constantFrom<JsonTree>(true, false),
    list: fc.array(anyJson, { maxLength: 3 }),
    object: fc.dictionary(fc.string({ maxLength: 5 }), anyJson, { maxKeys: 3 }),
  };
  return fc.oneof(
    ...Object.entries(candidates)
      .filter(([name]) => name !== kind)
      .map(([, arbitrary]) => arbitrary),
  );
}
