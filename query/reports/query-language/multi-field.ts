/**
 * Multi-field conditions (reports.md §4.5): `_any_` / `_all_` (aliases `_or_`,
 * `any`, `_and_`, `all`), each `{fields, pattern | datetime}`. A pattern is
 * searched case-insensitively in every listed field (array fields: any
 * element; references: the stored id); a datetime applies to the listed
 * date-time fields only.
 */
import { apiError, type ApiError } from '../../../shared/errors/error-catalogue.js';
import { dateTimeTest } from './datetime-conditions.js';
import { storedTime } from './datetime-parse.js';
import type { FieldCatalogue } from './field-catalogue.js';
import { compilePattern, type RegexBudget } from './pattern-regex.js';
import { cannotResolveField } from './query-errors.js';
import { recordValue, splitPath, stringsOf } from './record-path.js';
import type { Condition, StoredRecord } from './types.js';

export const ANY_MEMBERS = ['_any_', '_or_', 'any'] as const;
export const ALL_MEMBERS = ['_all_', '_and_', 'all'] as const;

function incorrectFormat(member: string): ApiError {
  return apiError('invalid_fields', 'failed parsing query field', [
    ['error', `incorrect field format: field=${member}`],
    ['field', member],
  ]);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every multi-field condition of the request, validated up front. */
export function compileMultiFieldConditions(
  request: Record<string, unknown>,
  catalogue: FieldCatalogue,
  budget: RegexBudget,
): Condition[] {
  const conditions: Condition[] = [];
  for (const [members, requireAll] of [
    [ANY_MEMBERS, false],
    [ALL_MEMBERS, true],
  ] as const) {
    for (const member of members) {
      const condition = compileOne(member, request[member], requireAll, catalogue, budget);
      if (condition) conditions.push(condition);
    }
  }
  return conditions;
}

function compileOne(
  member: string,
  value: unknown,
  requireAll: boolean,
  catalogue: FieldCatalogue,
  budget: RegexBudget,
): Condition | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw incorrectFormat(member);
  const fields = fieldList(member, value.fields);
  if (fields.length === 0) return undefined;
  const pattern = value.pattern ?? undefined;
  const datetime = value.datetime ?? undefined;
  if ((pattern === undefined) === (datetime === undefined)) throw incorrectFormat(member);
  if (pattern !== undefined && typeof pattern !== 'string') throw incorrectFormat(member);
  for (const field of fields) {
    if (!catalogue.knownFields.has(splitPath(field)[0]!)) throw cannotResolveField(field);
  }
  return pattern !== undefined
    ? patternCondition(fields, pattern, requireAll, budget)
    : dateTimeCondition(fields, datetime, requireAll, catalogue);
}

function fieldList(member: string, fields: unknown): string[] {
  if (fields === undefined || fields === null) return [];
  const list = typeof fields === 'string' ? [fields] : fields;
  if (!Array.isArray(list) || !list.every((f): f is string => typeof f === 'string')) throw incorrectFormat(member);
  return list;
}

function combine(requireAll: boolean, count: number, fieldMatches: (record: StoredRecord, i: number) => boolean) {
  const indexes = Array.from({ length: count }, (_, i) => i);
  return requireAll
    ? (record: StoredRecord) => indexes.every((i) => fieldMatches(record, i))
    : (record: StoredRecord) => indexes.some((i) => fieldMatches(record, i));
}

function patternCondition(
  fields: string[],
  pattern: string,
  requireAll: boolean,
  budget: RegexBudget,
): Condition | undefined {
  if (pattern === '') return undefined;
  const matcher = compilePattern(pattern, { caseInsensitive: true, budget });
  const paths = fields.map(splitPath);
  const texts = (record: StoredRecord, i: number) => stringsOf(recordValue(record, paths[i]!));
  const condition: Condition = {
    test: combine(requireAll, paths.length, (record, i) => texts(record, i).some((t) => matcher.test(t))),
  };
  if (matcher.prime) {
    const prime = matcher.prime;
    condition.prime = (records) => {
      const all: string[] = [];
      for (const r of records) for (let i = 0; i < paths.length; i++) all.push(...texts(r, i));
      prime(all);
    };
  }
  return condition;
}

function dateTimeCondition(
  fields: string[],
  datetime: unknown,
  requireAll: boolean,
  catalogue: FieldCatalogue,
): Condition | undefined {
  const dated = fields.filter((f) => catalogue.dateTimeFields.has(f));
  const test = dateTimeTest(datetime);
  if (dated.length === 0 || test === undefined) return undefined;
  return { test: combine(requireAll, dated.length, (record, i) => test(storedTime(record[dated[i]!]))) };
}
