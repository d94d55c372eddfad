import { describe, expect, it } from 'vitest';
import { catalogueFor } from './field-catalogue.js';
import { compileMultiFieldConditions } from './multi-field.js';
import { RegexBudget } from './pattern-regex.js';
import { errorOf, idsMatching } from './test-records.js';
import type { StoredRecord } from './types.js';

const tasks = catalogueFor('task');
const records: StoredRecord[] = [
  { id: 'r1', name: 'Weekly results', tags: ['nlp'], project: 'p-weekly', last_update: Date.UTC(2024, 4, 1) },
  {
    id: 'r2',
    name: 'Monthly',
    tags: ['WEEKLY', 'x'],
    project: 'p2',
    comment: 'weekly too',
    last_update: Date.UTC(2024, 6, 1),
  },
  { id: 'r3', name: 'Other', tags: [], project: 'p3', report: 'hello world' },
  { id: 'weekly-id', name: 'by id', project: 'p4', last_change: Date.UTC(2024, 6, 1) },
];

function matching(request: Record<string, unknown>, catalogue = tasks): string[] {
  const conditions = compileMultiFieldConditions(request, catalogue, new RegexBudget());
  return idsMatching(records, (r) => conditions.every((c) => c.test(r)));
}

describe('§4.5 multi-field pattern', () => {
  it('the web UI search: any of id, name, tags, project, case-insensitive', () => {
    expect(matching({ _any_: { pattern: 'weekly', fields: ['id', 'name', 'tags', 'project'] } })).toEqual([
      'r1',
      'r2',
      'weekly-id',
    ]);
  });

  it('accepts the aliases _or_ and any', () => {
    expect(matching({ _or_: { pattern: 'hello', fields: ['report'] } })).toEqual(['r3']);
    expect(matching({ any: { pattern: 'HELLO', fields: ['report'] } })).toEqual(['r3']);
  });

  it('_all_ (and _and_, all) require every field to match', () => {
    expect(matching({ _all_: { pattern: 'weekly', fields: ['tags', 'comment'] } })).toEqual(['r2']);
    expect(matching({ _and_: { pattern: 'l', fields: ['name', 'project'] } })).toEqual(['r1']);
    expect(matching({ all: { pattern: '^r', fields: ['id'] } })).toEqual(['r1', 'r2', 'r3']);
  });

  it('members are AND-ed', () => {
    expect(
      matching({ _any_: { pattern: 'weekly', fields: ['name', 'tags'] }, _all_: { pattern: 'x', fields: ['tags'] } }),
    ).toEqual(['r2']);
  });

  it('empty or absent fields ignore the whole condition', () => {
    expect(matching({ _any_: { pattern: 'zzz', fields: [] } })).toHaveLength(4);
    expect(matching({ _any_: { pattern: 'zzz' } })).toHaveLength(4);
    expect(matching({ _any_: {} })).toHaveLength(4);
  });

  it('nested paths and unknown-but-declared fields match nothing rather than fail', () => {
    expect(matching({ _any_: { pattern: '.', fields: ['project.name', 'script.repository'] } })).toEqual([]);
  });
});

describe('§4.5 multi-field datetime', () => {
  it('applies to the listed date-time fields only', () => {
    expect(matching({ _any_: { datetime: '>=2024-06-01', fields: ['name', 'last_update', 'last_change'] } })).toEqual([
      'r2',
      'weekly-id',
    ]);
    expect(matching({ _all_: { datetime: ['2024-01-01', '2024-12-31'], fields: ['last_update', 'name'] } })).toEqual([
      'r1',
      'r2',
    ]);
  });

  it('is ignored when no listed field is a date-time field', () => {
    expect(matching({ _any_: { datetime: '>=2030-01-01', fields: ['name'] } })).toHaveLength(4);
  });
});

describe('§4.5 errors', () => {
  const format = (member: string) =>
    `Invalid value for fields (failed parsing query field): error=incorrect field format: field=${member}, field=${member}`;
  it.each([
    [{ _any_: 'weekly' }, '_any_'],
    [{ _all_: 5 }, '_all_'],
    [{ any: ['x'] }, 'any'],
    [{ _and_: true }, '_and_'],
    [{ _any_: { fields: ['name'] } }, '_any_'],
    [{ _any_: { fields: ['name'], pattern: 'a', datetime: '>2024-01-01' } }, '_any_'],
    [{ _any_: { fields: ['name'], pattern: 5 } }, '_any_'],
    [{ _any_: { fields: [5], pattern: 'a' } }, '_any_'],
  ])('400/16 for %j', (request, member) => {
    expect(errorOf(() => matching(request))).toEqual({ code: '400/16', message: format(member) });
  });

  it('400/14 for a field that is not a record field', () => {
    expect(errorOf(() => matching({ _any_: { pattern: 'a', fields: ['name', 'bogus.sub'] } }))).toEqual({
      code: '400/14',
      message:
        'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field "bogus.sub"',
    });
  });

  it('400/14 uses the model fields for models', () => {
    expect(errorOf(() => matching({ _any_: { pattern: 'a', fields: ['report'] } }, catalogueFor('model'))).code).toBe(
      '400/14',
    );
    expect(matching({ _any_: { pattern: 'a', fields: ['uri'] } }, catalogueFor('model'))).toEqual([]);
  });

  it('400/21 for a malformed pattern', () => {
    expect(errorOf(() => matching({ _any_: { pattern: '(', fields: ['name'] } })).code).toBe('400/21');
  });
});
