// Property tests of buffered call data (issue 10): whatever the query string,
// form body or JSON body, building call data either succeeds with objects
// that have no prototype, or throws a 4xx ApiError; Object.prototype is
// never touched.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError, MAX_MESSAGE_CHARS } from '../errors/error-catalogue.js';
import { buildCallData } from './call-data.js';
import { adoptClientJson, jsonNestsDeeperThan, MAX_CALL_DATA_DEPTH } from './client-object.js';

const PROTOTYPE_MEMBERS = Object.getOwnPropertyNames(Object.prototype).sort();

/** Names that stress path walking: prototype names, dots, list suffixes, empty segments. */
const hostileName = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'a',
    'a.b',
    'a[]',
    '',
    '.',
    '..',
    '[]',
    'a.__proto__',
    '__proto__[]',
  ),
  fc.string({ maxLength: 8 }),
  fc
    .array(fc.constantFrom('__proto__', 'constructor', 'prototype', 'a', 'b', '', 'x[]'), {
      minLength: 1,
      maxLength: 6,
    })
    .map((s) => s.join('.')),
);
const textValue = fc.oneof(
  fc.constantFrom('1', '1.5', '.5', 'true', 'False', '-5', '1e3', ''),
  fc.string({ maxLength: 8 }),
);
const params = fc
  .array(fc.tuple(hostileName, textValue), { maxLength: 8 })
  .map((pairs) => new URLSearchParams(pairs).toString());

const jsonKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a', 'valueOf'),
  fc.string({ maxLength: 6 }),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -1, 1.5, 1e308, ''),
    fc.string({ maxLength: 6 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(jsonKey, tie('value')), { maxLength: 3 }).map(objectText),
  ),
})).value;

/** An object as JSON text built from pairs, so that `__proto__` becomes a real key (not a prototype). */
function objectText(pairs: Array<[string, unknown]>): { toJSON(): unknown; text: string } {
  const text = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${toText(v)}`).join(', ')}}`;
  return { text, toJSON: () => JSON.parse(text) as unknown };
}

function toText(value: unknown): string {
  if (value !== null && typeof value === 'object' && 'text' in value) return (value as { text: string }).text;
  if (Array.isArray(value)) return `[${value.map(toText).join(', ')}]`;
  return JSON.stringify(value);
}

const jsonBody = fc.oneof(
  jsonValue.map(toText),
  fc.string({ maxLength: 20 }),
  fc.integer({ min: 1, max: 3 * MAX_CALL_DATA_DEPTH }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  fc.integer({ min: 1, max: 3 * MAX_CALL_DATA_DEPTH }).map((n) => `{"k": ${'['.repeat(n)}${']'.repeat(n)}}`),
);

function expectNullPrototypes(value: unknown, depth = 0): void {
  if (value === null || typeof value !== 'object') return;
  expect(depth).toBeLessThanOrEqual(MAX_CALL_DATA_DEPTH);
  if (Array.isArray(value)) {
    for (const v of value) expectNullPrototypes(v, depth + 1);
    return;
  }
  expect(Object.getPrototypeOf(value)).toBeNull();
  for (const v of Object.values(value)) expectNullPrototypes(v, depth + 1);
}

/** Builds call data; the outcome is the data, or the 4xx ApiError it threw (anything else fails the property). */
function outcome(body: string, contentType: string | undefined, search: string): unknown {
  try {
    return buildCallData(Buffer.from(body), contentType, search);
  } catch (error) {
    if (!isApiError(error)) throw error;
    expect(error.httpStatus).toBeGreaterThanOrEqual(400);
    expect(error.httpStatus).toBeLessThan(500);
    expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS + 3);
    return error;
  }
}

function check(body: string, contentType: string | undefined, search: string): void {
  const data = outcome(body, contentType, search);
  if (!isApiError(data) && !Array.isArray(data)) expectNullPrototypes(data);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_MEMBERS);
  expect(({} as Record<string, unknown>).a).toBeUndefined();
}

describe('buildCallData, on generated input', () => {
  it('query strings over a JSON body', () => {
    fc.assert(
      fc.property(jsonBody, params, (body, search) => check(body, 'application/json', search)),
      { numRuns: 2000 },
    );
  });

  it('form bodies after a query string', () => {
    fc.assert(
      fc.property(params, params, (body, search) => check(body, 'application/x-www-form-urlencoded', search)),
      { numRuns: 2000 },
    );
  });

  it('any body under any declared type', () => {
    const type = fc.constantFrom(
      undefined,
      'text/plain',
      'application/json; charset=utf-8',
      'application/json-lines',
      'application/x-www-form-urlencoded',
    );
    fc.assert(
      fc.property(
        fc.oneof(jsonBody, fc.string({ maxLength: 30 })),
        type,
        fc.string({ maxLength: 30 }),
        (body, t, search) => check(body, t, search),
      ),
      {
        numRuns: 2000,
      },
    );
  });

  it('prototype keys are refused wherever they appear; other keys are kept', () => {
    for (const [body, search] of [
      ['{"a": {"b": [{"__proto__": 1}]}}', ''],
      ['{}', 'a.b.constructor=1'],
      ['{}', 'x=1&prototype[]=2'],
    ]) {
      const error = outcome(body!, 'application/json', search!);
      expect(isApiError(error) && error.message).toMatch(
        /^Validation error \(key '(__proto__|constructor|prototype)' is not allowed\)$/,
      );
    }
    const data = buildCallData(
      Buffer.from('{"toString": 1, "a": {"valueOf": [2]}}'),
      'application/json',
      'hasOwnProperty=3',
    ) as Record<string, any>;
    expect({ ...data, a: { ...data.a } }).toEqual({ toString: 1, a: { valueOf: [2] }, hasOwnProperty: 3 });
  });
});

describe('nesting limit', () => {
  it('the byte scan agrees with the parsed depth, brackets in strings and escapes included', () => {
    const deepest = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value as object).map(deepest)) : 0;
    const str = fc
      .tuple(fc.string({ maxLength: 6 }), fc.constantFrom('[', '{', '"', '\\', ']', ''))
      .map(([s, c]) => s + c);
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'medium' },
        str,
        fc.integer(),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(str, tie('v'), { maxKeys: 2 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 6 }), (v, limit) => {
        const bytes = Buffer.from(JSON.stringify(v));
        expect(jsonNestsDeeperThan(bytes, limit)).toBe(deepest(v) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('adoptClientJson walks iteratively (no stack overflow far beyond the limit)', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { a: deep };
    expect(() => adoptClientJson(deep)).toThrow(/nested deeper than 100 levels/);
    let shallow: unknown = 1;
    for (let i = 0; i < MAX_CALL_DATA_DEPTH; i++) shallow = [shallow];
    expect(adoptClientJson(shallow)).toBe(shallow);
  });
});
