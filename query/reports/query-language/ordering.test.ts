import { describe, expect, it } from 'vitest';
import { catalogueFor } from './field-catalogue.js';
import { compileOrdering, parseOrderBy } from './ordering.js';
import { errorOf } from './test-records.js';
import type { StoredRecord } from './types.js';

const tasks = catalogueFor('task');

function order(records: StoredRecord[], orderBy: unknown, score?: (r: StoredRecord) => number): string[] {
  const keys = parseOrderBy(orderBy, tasks, score !== undefined);
  const ordering = compileOrdering(keys, tasks, score);
  return [...records].sort(ordering.compare).map((r) => r.id as string);
}

describe('§4.8 first key: missing, null, "" and [] last in both directions', () => {
  const records: StoredRecord[] = [
    { id: '1', name: 'b' },
    { id: '2', name: '' },
    { id: '3', name: 'a' },
    { id: '4' },
    { id: '5', name: null },
    { id: '6', name: 'B' },
  ];
  it('ascending, code-point order (B < a)', () => {
    expect(order(records, ['name'])).toEqual(['6', '3', '1', '2', '4', '5']);
  });
  it('descending', () => {
    expect(order(records, ['-name'])).toEqual(['1', '3', '6', '2', '4', '5']);
  });
  it('missing ones follow the remaining keys', () => {
    expect(order(records, ['name', '-id'])).toEqual(['6', '3', '1', '5', '4', '2']);
  });
  it('empty arrays count as missing for the first key', () => {
    const rows = [
      { id: 'x', tags: [] },
      { id: 'y', tags: ['b'] },
      { id: 'z', tags: ['a'] },
    ];
    expect(order(rows, ['tags'])).toEqual(['z', 'y', 'x']);
    expect(order(rows, ['-tags'])).toEqual(['y', 'z', 'x']);
  });
});

describe('§4.8 other keys: missing/null first ascending, last descending', () => {
  const records: StoredRecord[] = [
    { id: '1', status: 's', comment: 'b' },
    { id: '2', status: 's' },
    { id: '3', status: 's', comment: 'a' },
    { id: '4', status: 's', comment: null },
  ];
  it('ascending', () => {
    expect(order(records, ['status', 'comment'])).toEqual(['2', '4', '3', '1']);
  });
  it('descending', () => {
    expect(order(records, ['status', '-comment'])).toEqual(['1', '3', '2', '4']);
  });
});

describe('§4.8 comparison rules', () => {
  it('orders across types: null < numbers < strings < objects < booleans', () => {
    const records: StoredRecord[] = [
      { id: 'bool', status: 's', comment: true },
      { id: 'obj', status: 's', comment: { a: 1 } },
      { id: 'str', status: 's', comment: 'x' },
      { id: 'num', status: 's', comment: 5 },
      { id: 'null', status: 's', comment: null },
    ];
    expect(order(records, ['status', 'comment'])).toEqual(['null', 'num', 'str', 'obj', 'bool']);
  });

  it('date-time fields rank after every other type and compare chronologically', () => {
    const records: StoredRecord[] = [
      { id: 'late', created: Date.UTC(2024, 5, 1) },
      { id: 'early', created: Date.UTC(2024, 0, 1) },
      { id: 'text', created: 'not a date' },
    ];
    expect(order(records, ['created'])).toEqual(['text', 'early', 'late']);
  });

  it('numbers numerically', () => {
    const records = [
      { id: 'a', last_iteration: 10 },
      { id: 'b', last_iteration: 9 },
      { id: 'c', last_iteration: -1 },
    ];
    expect(order(records, ['last_iteration'])).toEqual(['c', 'b', 'a']);
  });

  it('arrays by smallest element ascending and largest descending', () => {
    const records: StoredRecord[] = [
      { id: 'am', tags: ['a', 'm'] },
      { id: 'bc', tags: ['c', 'b'] },
      { id: 'z', tags: ['z'] },
    ];
    expect(order(records, ['tags'])).toEqual(['am', 'bc', 'z']);
    expect(order(records, ['-tags'])).toEqual(['z', 'am', 'bc']);
  });

  it('nested paths; reference sub-fields sort as missing', () => {
    const records: StoredRecord[] = [
      { id: '1', project: 'p2', last_metrics: { m: { v: { value: 3 } } } },
      { id: '2', project: 'p1', last_metrics: { m: { v: { value: 1 } } } },
      { id: '3', project: 'p0' },
    ];
    expect(order(records, ['last_metrics.m.v.value'])).toEqual(['2', '1', '3']);
    expect(order(records, ['project'])).toEqual(['3', '2', '1']);
    expect(order(records, ['-project.name'])).toEqual(['1', '2', '3']);
  });
});

describe('§4.8 keys', () => {
  it('appends id unless present', () => {
    expect(parseOrderBy(['-last_update'], tasks, false)).toEqual([
      { field: 'last_update', descending: true },
      { field: 'id', descending: false },
    ]);
    expect(parseOrderBy(['-id', 'name'], tasks, false)).toEqual([
      { field: 'id', descending: true },
      { field: 'name', descending: false },
    ]);
  });

  it('accepts a single string', () => {
    expect(parseOrderBy('name', tasks, false)).toHaveLength(2);
  });

  it('defaults to created, then id', () => {
    const expected = [
      { field: 'created', descending: false },
      { field: 'id', descending: false },
    ];
    expect(parseOrderBy(undefined, tasks, false)).toEqual(expected);
    expect(parseOrderBy([], tasks, false)).toEqual(expected);
    const records = [
      { id: 'b', created: 2 },
      { id: 'c', created: 1 },
      { id: 'a', created: 2 },
    ];
    expect(order(records, undefined)).toEqual(['c', 'a', 'b']);
  });

  it('@text_score orders by score, highest first, the next key being the first for missing values', () => {
    const scores: Record<string, number> = { a: 1, b: 5, c: 5, d: 0 };
    const records: StoredRecord[] = [
      { id: 'a', name: 'x' },
      { id: 'b' },
      { id: 'c', name: 'y' },
      { id: 'd', name: 'z' },
    ];
    expect(order(records, ['@text_score', 'name'], (r) => scores[r.id as string]!)).toEqual(['c', 'a', 'd', 'b']);
    expect(order(records, ['@text_score'], (r) => scores[r.id as string]!)).toEqual(['b', 'c', 'a', 'd']);
  });
});

describe('§4.8 errors', () => {
  it.each([
    [
      ['@text_score'],
      '400/16',
      'Invalid value for fields (text score cannot be used in order_by when search text is not used)',
    ],
    [
      ['-@text_score'],
      '400/14',
      'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field "@text_score"',
    ],
    [
      ['@score'],
      '400/14',
      'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field "@score"',
    ],
    [
      ['name', '-bogus'],
      '400/14',
      'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field "bogus"',
    ],
    [
      ['bogus.x'],
      '400/14',
      'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field "bogus.x"',
    ],
    [
      [''],
      '400/14',
      'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field ""',
    ],
    [['name', 5], '400/12', 'Validation error (all items must be instances of "str", and not "int".)'],
    [{ a: 1 }, '400/12', 'Validation error (value is wrong, expected type "list" {\'a\': 1})'],
  ])('%j', (value, code, message) => {
    expect(errorOf(() => parseOrderBy(value, tasks, false))).toEqual({ code, message });
  });

  it('model fields for models', () => {
    expect(parseOrderBy(['framework'], catalogueFor('model'), false)).toHaveLength(2);
    expect(errorOf(() => parseOrderBy(['status'], catalogueFor('model'), false)).code).toBe('400/14');
  });
});
