/**
 * The structured `filters` object (reports.md §4.3):
 * `{<field>: {any: {include, exclude}, all: {include, exclude}, op}}`.
 * Parsing validates the whole object; compiling gives one condition per field.
 */
import { apiError, type ApiError } from '../../../shared/errors/error-catalogue.js';
import { pyRepr } from '../../../shared/protocol/python-repr.js';
import { containsAll, containsAny, containsNone, type ListFieldReader, type ValuesTest } from './list-condition.js';
import { invalidValueType, pyStr } from './query-errors.js';
import type { Condition } from './types.js';

export interface FilterValues {
  /** The non-null values. */
  readonly values: readonly string[];
  /** Whether the list held `null`. */
  readonly hasNull: boolean;
}

export interface FilterPart {
  readonly include?: FilterValues;
  readonly exclude?: FilterValues;
}

export interface FieldFilter {
  readonly any?: FilterPart;
  readonly all?: FilterPart;
  readonly combineWithOr: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function structureError(field: string, problem: string): ApiError {
  return apiError('validation_error', undefined, [
    ['field', field],
    ['value', problem],
  ]);
}

/**
 * Validates `filters` and returns the filters of the honoured fields, in
 * request order. Keys that `isHonoured` rejects are skipped unvalidated.
 */
export function parseFilters(value: unknown, isHonoured: (field: string) => boolean): Map<string, FieldFilter> {
  const parsed = new Map<string, FieldFilter>();
  if (value === undefined || value === null) return parsed;
  if (!isPlainObject(value)) {
    throw apiError('invalid_fields', 'invalid value type, string expected', [
      ['field', pyStr(value)],
      ['value', pyStr(value)],
    ]);
  }
  for (const [field, filter] of Object.entries(value)) {
    if (!isHonoured(field) || filter === null || filter === undefined) continue;
    parsed.set(field, parseFieldFilter(field, filter));
  }
  return parsed;
}

function parseFieldFilter(field: string, filter: unknown): FieldFilter {
  if (!isPlainObject(filter)) {
    throw apiError('validation_error', 'invalid filter for field, dictionary expected', [
      ['field', field],
      ['value', pyStr(filter)],
    ]);
  }
  for (const key of Object.keys(filter)) {
    if (key !== 'any' && key !== 'all' && key !== 'op') throw structureError(field, `unsupported key '${key}'`);
  }
  const op = filter.op ?? 'and';
  if (op !== 'and' && op !== 'or') throw structureError(field, `op must be 'and' or 'or', not ${pyRepr(op)}`);
  return {
    any: parsePart(field, 'any', filter.any),
    all: parsePart(field, 'all', filter.all),
    combineWithOr: op === 'or',
  };
}

function parsePart(field: string, name: string, part: unknown): FilterPart | undefined {
  if (part === undefined || part === null) return undefined;
  if (!isPlainObject(part)) throw structureError(field, `'${name}' must be a dictionary, not ${pyRepr(part)}`);
  for (const key of Object.keys(part)) {
    if (key !== 'include' && key !== 'exclude') throw structureError(field, `unsupported key '${key}' in '${name}'`);
  }
  return {
    include: parseValues(field, `${name}.include`, part.include),
    exclude: parseValues(field, `${name}.exclude`, part.exclude),
  };
}

function parseValues(field: string, name: string, list: unknown): FilterValues | undefined {
  if (list === undefined || list === null) return undefined;
  const items = typeof list === 'string' ? [list] : list;
  if (!Array.isArray(items)) throw structureError(field, `'${name}' must be a list, not ${pyRepr(list)}`);
  const values: string[] = [];
  let hasNull = false;
  for (const item of items) {
    if (item === null) hasNull = true;
    else if (typeof item === 'string') values.push(item);
    else throw invalidValueType(field, item);
  }
  return values.length === 0 && !hasNull ? undefined : { values, hasNull };
}

type RecordTest = (values: readonly string[], empty: boolean) => boolean;

/**
 * One part's alternatives. In `any`, include = contains one of, exclude =
 * lacks at least one of, OR-ed; in `all`, include = contains every, exclude =
 * contains none, AND-ed. `null` adds "is empty" (include) / "is not empty" (exclude).
 */
function partTest(
  part: FilterPart | undefined,
  isAny: boolean,
  normalise: (v: string) => string,
): RecordTest | undefined {
  if (part === undefined) return undefined;
  const tests: RecordTest[] = [];
  const add = (values: FilterValues | undefined, make: (v: readonly string[]) => ValuesTest, emptyWanted: boolean) => {
    if (values === undefined) return;
    if (values.values.length > 0) {
      const t = make(values.values.map(normalise));
      tests.push((vals) => t(vals));
    }
    if (values.hasNull) tests.push((_vals, empty) => empty === emptyWanted);
  };
  if (isAny) {
    add(part.include, containsAny, true);
    add(
      part.exclude,
      (v) => {
        const all = containsAll(v);
        return (vals) => !all(vals);
      },
      false,
    );
  } else {
    add(part.include, containsAll, true);
    add(part.exclude, containsNone, false);
  }
  if (tests.length === 0) return undefined;
  return isAny
    ? (vals, empty) => tests.some((t) => t(vals, empty))
    : (vals, empty) => tests.every((t) => t(vals, empty));
}

/** The condition of one field's filter; undefined when every part is empty. */
export function filterCondition(filter: FieldFilter, reader: ListFieldReader): Condition | undefined {
  const parts = [partTest(filter.any, true, reader.normalise), partTest(filter.all, false, reader.normalise)].filter(
    (t): t is RecordTest => t !== undefined,
  );
  if (parts.length === 0) return undefined;
  const combined: RecordTest =
    parts.length === 1
      ? parts[0]!
      : filter.combineWithOr
        ? (v, e) => parts.some((p) => p(v, e))
        : (v, e) => parts.every((p) => p(v, e));
  return { test: (record) => combined(reader.values(record), reader.isEmpty(record)) };
}
