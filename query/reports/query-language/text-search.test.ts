import { describe, expect, it } from 'vitest';
import { catalogueFor } from './field-catalogue.js';
import { compileTextSearch, parseTextQuery, tokenize } from './text-search.js';
import { idsMatching } from './test-records.js';
import type { StoredRecord } from './types.js';

const tasks = catalogueFor('task');
const records: StoredRecord[] = [
  { id: 'a1', name: 'Café results', comment: 'the weekly summary' },
  { id: 'a2', name: 'Weekly sales', report: 'Sales went up. Weekly, weekly!' },
  { id: 'a3', name: 'Model training', script: { repository: 'git@host:team/weekly.git' } },
  { id: 'a4', name: 'Something', models: { input: [{ model: 'weekly' }] } },
];

const search = (text: string, kind: 'task' | 'model' = 'task') => compileTextSearch(text, catalogueFor(kind))!;
const matching = (text: string) => idsMatching(records, (r) => search(text).test(r));

describe('§4.7 tokenisation', () => {
  it('splits on non letter/digit, folds case and diacritics', () => {
    expect(tokenize('Café-Results_v2 ÅNGSTRÖM')).toEqual(['cafe', 'results', 'v2', 'angstrom']);
  });

  it('parses phrases, negated terms and drops stop words', () => {
    expect(parseTextQuery('the "Weekly Summary" -draft of sales')).toEqual({
      terms: ['sales'],
      negated: ['draft'],
      phrases: ['weekly summary'],
    });
  });
});

describe('§4.7 matching', () => {
  it('one term suffices, found as a token in any indexed field', () => {
    expect(matching('weekly')).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(matching('cafe')).toEqual(['a1']);
    expect(matching('CAFÉ nothing')).toEqual(['a1']);
  });

  it('tokens must match whole', () => {
    expect(matching('week')).toEqual([]);
  });

  it('phrases are case-insensitive substrings and all required; terms are then optional', () => {
    expect(matching('"weekly summary"')).toEqual(['a1']);
    expect(matching('"WEEKLY SALES" nothing')).toEqual(['a2']);
    expect(matching('"weekly" "sales went"')).toEqual(['a2']);
  });

  it('negated terms exclude', () => {
    expect(matching('weekly -sales')).toEqual(['a1', 'a3', 'a4']);
  });

  it('a query of only stop words or negations matches nothing', () => {
    expect(matching('the of')).toEqual([]);
    expect(matching('-sales')).toEqual([]);
  });

  it('an empty query is no condition', () => {
    expect(compileTextSearch('  ', tasks)).toBeUndefined();
    expect(compileTextSearch(undefined, tasks)).toBeUndefined();
  });
});

describe('§4.7 score', () => {
  it('Σ weight × occurrences of query terms', () => {
    const s = search('weekly');
    expect(records.map((r) => s.score(r))).toEqual([10, 10 + 20, 1, 2]);
  });

  it('uses the model weights for models', () => {
    const s = search('p1', 'model');
    expect(s.score({ id: 'm', name: 'x', project: 'p1', parent: 'p1', task: 'p1' })).toBe(3 + 5 + 3);
  });

  it('is 0 for records that do not match', () => {
    expect(search('weekly -sales').score(records[1]!)).toBe(0);
  });
});
