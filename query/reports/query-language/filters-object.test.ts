import { describe, expect, it } from 'vitest';
import { filterCondition, parseFilters } from './filters-object.js';
import { listFieldReader } from './list-condition.js';
import { errorOf, idsMatching, withTags } from './test-records.js';
import type { StoredRecord } from './types.js';

const honoured = (field: string) => ['tags', 'system_tags', 'project', 'type'].includes(field);

function matching(records: StoredRecord[], tagsFilter: unknown): string[] {
  const parsed = parseFilters({ tags: tagsFilter }, honoured).get('tags');
  const condition = parsed && filterCondition(parsed, listFieldReader('tags'));
  return condition ? idsMatching(records, (r) => condition.test(r)) : records.map((r) => r.id as string);
}

describe('§4.3 worked results: A has ["test"], B has []', () => {
  const records: StoredRecord[] = [
    { id: 'A', tags: ['test'] },
    { id: 'B', tags: [] },
  ];
  it.each([
    [{ any: { include: [null] } }, ['B']],
    [{ any: { include: ['test', null] } }, ['A', 'B']],
    [{ any: { exclude: [null] } }, ['A']],
    [{ any: { exclude: ['test', null] } }, ['A', 'B']],
    [{ all: { include: ['test', null] } }, []],
    [{ all: { exclude: ['test'] } }, ['B']],
    [{ all: { exclude: ['test', null] } }, []],
  ])('%j', (filter, expected) => {
    expect(matching(records, filter)).toEqual(expected);
  });
});

describe('§4.3 worked results: tags [], [a], [a,b], [a,b,c], [a,b,c,d]', () => {
  const records = withTags([], ['a'], ['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c', 'd']);
  it('any.exclude [c, d] → all but the last', () => {
    expect(matching(records, { any: { exclude: ['c', 'd'] } })).toEqual(['r0', 'r1', 'r2', 'r3']);
  });
  it('all.exclude [c, d] → the first three', () => {
    expect(matching(records, { all: { exclude: ['c', 'd'] } })).toEqual(['r0', 'r1', 'r2']);
  });
  it('{any: {include: [a, b]}, all: {exclude: [c, d]}} → [a], [a,b]', () => {
    expect(matching(records, { any: { include: ['a', 'b'] }, all: { exclude: ['c', 'd'] } })).toEqual(['r1', 'r2']);
  });
  it('op "or" joins the parts with OR', () => {
    expect(matching(records, { any: { include: ['d'] }, all: { include: ['a', 'b'] }, op: 'or' })).toEqual([
      'r2',
      'r3',
      'r4',
    ]);
  });
  it('absent parts and empty lists give no condition', () => {
    expect(matching(records, {})).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(matching(records, { any: { include: [] }, all: null })).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });
});

describe('§4.3 parsing', () => {
  it('skips fields that are not honoured and null filters', () => {
    expect([...parseFilters({ name: 5, user: { bogus: 1 }, tags: null }, honoured).keys()]).toEqual([]);
  });

  it('treats null and absent filters as nothing', () => {
    expect(parseFilters(null, honoured).size).toBe(0);
    expect(parseFilters(undefined, honoured).size).toBe(0);
  });
});

describe('§4.3 errors', () => {
  const parse = (value: unknown) => () => parseFilters(value, honoured);
  it.each([
    ['abc', '400/16', 'Invalid value for fields (invalid value type, string expected): field=abc, value=abc'],
    [['x'], '400/16', "Invalid value for fields (invalid value type, string expected): field=['x'], value=['x']"],
    [
      { tags: ['a'] },
      '400/12',
      "Validation error (invalid filter for field, dictionary expected): field=tags, value=['a']",
    ],
    [{ tags: 'a' }, '400/12', 'Validation error (invalid filter for field, dictionary expected): field=tags, value=a'],
    [{ tags: { some: {} } }, '400/12', "Validation error: field=tags, value=unsupported key 'some'"],
    [
      { tags: { any: { include: [], other: [] } } },
      '400/12',
      "Validation error: field=tags, value=unsupported key 'other' in 'any'",
    ],
    [{ tags: { op: 'xor' } }, '400/12', "Validation error: field=tags, value=op must be 'and' or 'or', not 'xor'"],
    [{ tags: { all: [] } }, '400/12', "Validation error: field=tags, value='all' must be a dictionary, not []"],
    [
      { tags: { all: { include: 5 } } },
      '400/12',
      "Validation error: field=tags, value='all.include' must be a list, not 5",
    ],
    [
      { tags: { any: { include: [1] } } },
      '400/16',
      'Invalid value for fields (invalid value type, string expected): field=tags, value=1',
    ],
  ])('%j', (value, code, message) => {
    expect(errorOf(parse(value))).toEqual({ code, message });
  });
});
