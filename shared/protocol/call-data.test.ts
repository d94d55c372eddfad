// Property tests of buffered call data (issue 10): whatever the query string,
// form body or JSON body, building call data either succeeds with objects
// that have no prototype, or throws a 4xx ApiError; Object.prototype is
// never touched.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError, MAX_MESSAGE_CHARS } from '../errors/error-catalogue.js';
import { buildCallData } from './call-data.js';
import {
  adoptClientJson,
  jsonShapeFault,
  MAX_CALL_DATA_DEPTH,
  maxJsonContainers,
  parseBoundedJson,
} from './client-object.js';

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

/** Objects and lists in a parsed JSON value, itself included. */
function containersOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Object.values(value as object).reduce<number>((sum, child) => sum + containersOf(child), 0);
}

describe('shape limits', () => {
  // Strings holding brackets, quotes and backslashes: the scan must skip them whole.
  const str = fc
    .tuple(fc.string({ maxLength: 6 }), fc.constantFrom('[', '{', '"', '\\', ']', '', '\\"', '{}'))
    .map(([s, c]) => s + c);

  it('the scan agrees with the parsed depth, brackets in strings and escapes included', () => {
    const deepest = (value: unknown): number =>
      value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value as object).map(deepest)) : 0;
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
        const text = JSON.stringify(v);
        expect(jsonShapeFault(text, limit) === 'deep').toBe(deepest(v) > limit);
      }),
      { numRuns: 2000 },
    );
  });

  it('the scan agrees with the parsed count of objects and lists, on either side of the bound', () => {
    // Lists of small containers cross the bound (10,000 and one per 16 characters) at about 12,000 elements:
    // a generated run of elements, repeated.
    const element = fc.oneof(
      { arbitrary: fc.constantFrom<unknown>({}, [], [{}], { a: [] }, [[]]), weight: 6 },
      { arbitrary: fc.constantFrom<unknown>(1, 'x'), weight: 1 },
      { arbitrary: str, weight: 1 },
      { arbitrary: fc.dictionary(str, fc.constantFrom<unknown>({}, [], 2), { maxKeys: 2 }), weight: 1 },
    );
    const list = fc
      .tuple(fc.array(element, { minLength: 20, maxLength: 300, size: 'max' }), fc.integer({ min: 1, max: 200 }))
      .map(([run, times]) => Array.from({ length: times }, () => run).flat());
    const sides = { over: 0, within: 0 };
    fc.assert(
      fc.property(list, fc.constantFrom('', ' ', '\n  '), (value, space) => {
        const text = JSON.stringify(value, null, space);
        const over = containersOf(value) > maxJsonContainers(text.length);
        sides[over ? 'over' : 'within']++;
        expect(jsonShapeFault(text, Infinity)).toBe(over ? 'containers' : undefined);
        if (over) expect(() => parseBoundedJson(text, () => new Error('malformed'))).toThrow(/objects and lists/);
        else expect(JSON.stringify(parseBoundedJson(text, () => new Error('malformed')))).toBe(JSON.stringify(value));
      }),
      { numRuns: 150 },
    );
    expect(sides.over).toBeGreaterThan(15);
    expect(sides.within).toBeGreaterThan(15);
  });

  it('a body of small objects beyond the bound is refused with 400/12, one at the bound is read', () => {
    const body = (n: number) => `{"task": "t", "a": [${Array(n).fill('{}').join(',')}]}`;
    const over = (n: number) => containersOf(JSON.parse(body(n))) > maxJsonContainers(body(n).length);
    let n = 1;
    while (!over(n)) n += 100;
    while (over(n - 1)) n--;
    // A body of n - 1 list elements is exactly at the bound; n elements pass it.
    expect(containersOf(JSON.parse(body(n - 1)))).toBe(maxJsonContainers(body(n - 1).length));
    expect((buildCallData(Buffer.from(body(n - 1)), 'application/json', '') as { a: unknown[] }).a).toHaveLength(n - 1);
    expect(outcome(body(n), 'application/json', '')).toMatchObject({
      httpStatus: 400,
      entry: { subcode: 12 },
      message: `Validation error (request data holds more than ${maxJsonContainers(body(n).length)} objects and lists in ${body(n).length} characters: at most 10000 and one per 16 characters)`,
    });
    expect(outcome(`{"a": 1}\n${body(n)}\n`, 'application/json-lines', '')).toMatchObject({ httpStatus: 400 });
  });

  it('a JSON-lines body counts the objects and lists of all its lines together, each line short', () => {
    // Each line alone is far below the bound: 10 million `{}` lines cost 9 s of JSON.parse calls when they were read.
    const lines = (n: number, line: string) => Array(n).fill(line).join('\n');
    const over = (n: number, line: string) =>
      n * containersOf(JSON.parse(line)) > maxJsonContainers(lines(n, line).length);
    for (const line of ['{}', '{"a": []}', '{"task": "t", "x": {}}']) {
      let n = 1;
      while (!over(n, line)) n += 100;
      while (over(n - 1, line)) n--;
      expect(buildCallData(Buffer.from(lines(n - 1, line)), 'application/json-lines', '')).toHaveLength(n - 1);
      expect(outcome(lines(n, line), 'application/json-lines', '')).toMatchObject({
        httpStatus: 400,
        entry: { subcode: 12 },
        message: expect.stringContaining(`objects and lists in ${lines(n, line).length} characters`),
      });
    }
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
