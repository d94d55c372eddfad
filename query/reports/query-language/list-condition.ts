/**
 * List conditions with prefix operators (reports.md §4.1, §4.2): a token list
 * such as `["__$and", "a", "__$not", "b"]` becomes value buckets, then a
 * predicate over the field's values. The filters object (§4.3) reuses the
 * set primitives exported here.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { invalidValueType } from './query-errors.js';
import { isEmptyValue } from './record-path.js';
import type { Condition, StoredRecord } from './types.js';

export interface ListBuckets {
  /** Record contains at least one of these. */
  readonly any: readonly string[];
  /** Record contains every one of these. */
  readonly all: readonly string[];
  /** Record contains none of these. */
  readonly none: readonly string[];
  /** Buckets joined with OR (else AND). */
  readonly combineWithOr: boolean;
  /** Also admit records whose field is missing, null or `[]`. */
  readonly allowEmpty: boolean;
}

const OPERATOR_PREFIX = '__$';
const NOT = '__$not';

/** The items of a list-condition value: a lone string is a one-element list; null/absent is no list. */
export function listItems(value: unknown): readonly unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Parses a §4.2 token list; undefined when it yields no condition. Throws the contract's 400/16s. */
export function parseListCondition(field: string, value: unknown): ListBuckets | undefined {
  const items = listItems(value);
  if (items === undefined || items.length === 0) return undefined;
  const any: string[] = [];
  const all: string[] = [];
  const none: string[] = [];
  let andContext = false;
  let minusPrefix = true;
  let negate = false;
  let allowEmpty = false;
  let combineWithOr = false;

  items.forEach((item, index) => {
    if (item === null) {
      allowEmpty = true;
      negate = false;
      return;
    }
    if (typeof item !== 'string') throw invalidValueType(field, item);
    if (item.startsWith(OPERATOR_PREFIX)) {
      if (negate && item !== '__$nop') {
        throw apiError('invalid_fields', 'Value is expected after', [
          ['field', field],
          ['operator', NOT],
        ]);
      }
      switch (item) {
        case '__$all':
        case '__$and':
          andContext = true;
          minusPrefix = false;
          if (index === 0) combineWithOr = false;
          return;
        case '__$any':
        case '__$or':
          andContext = false;
          minusPrefix = false;
          if (index === 0) combineWithOr = true;
          return;
        case '__$nop':
          andContext = false;
          minusPrefix = true;
          negate = false;
          return;
        case NOT:
          negate = true;
          return;
        default:
          throw apiError('invalid_fields', 'Unsupported operator', [
            ['field', field],
            ['operator', item],
          ]);
      }
    }
    if (negate) {
      none.push(item);
      negate = false;
    } else if (minusPrefix && item.startsWith('-')) {
      if (item.length === 1) {
        throw apiError('invalid_fields', 'Missing value after the exclude prefix -', [
          ['field', field],
          ['value', ''],
        ]);
      }
      none.push(item.slice(1));
    } else {
      (andContext ? all : any).push(item);
    }
  });

  if (negate) throw apiError('invalid_fields', 'Value is expected after', [['operator', NOT]]);
  if (any.length === 0 && all.length === 0 && none.length === 0 && !allowEmpty) return undefined;
  return { any, all, none, combineWithOr, allowEmpty };
}

/** How a list field is read: its values (normalised) and whether it counts as empty. */
export interface ListFieldReader {
  values(record: StoredRecord): readonly string[];
  isEmpty(record: StoredRecord): boolean;
  normalise(value: string): string;
}

/**
 * Reads a top-level list field. Scalar fields yield their one value (so
 * "contains" is equality); `caseInsensitive` folds both sides (get_task_data `type`).
 */
export function listFieldReader(field: string, options: { caseInsensitive?: boolean } = {}): ListFieldReader {
  const normalise = options.caseInsensitive ? (v: string) => v.toLowerCase() : (v: string) => v;
  return {
    normalise,
    isEmpty: (record) => isEmptyValue(record[field]),
    values(record) {
      const raw = record[field];
      if (typeof raw === 'string') return [normalise(raw)];
      if (Array.isArray(raw)) {
        const out: string[] = [];
        for (const v of raw) if (typeof v === 'string') out.push(normalise(v));
        return out;
      }
      if (typeof raw === 'number' || typeof raw === 'boolean') return [normalise(String(raw))];
      return [];
    },
  };
}

export type ValuesTest = (values: readonly string[]) => boolean;

export function containsAny(wanted: readonly string[]): ValuesTest {
  const set = new Set(wanted);
  return (values) => values.some((v) => set.has(v));
}

export function containsAll(wanted: readonly string[]): ValuesTest {
  const distinct = [...new Set(wanted)];
  return (values) => distinct.every((w) => values.includes(w));
}

export function containsNone(unwanted: readonly string[]): ValuesTest {
  const any = containsAny(unwanted);
  return (values) => !any(values);
}

/** The predicate of parsed buckets over one field. */
export function listCondition(buckets: ListBuckets, reader: ListFieldReader): Condition {
  const n = (values: readonly string[]) => values.map(reader.normalise);
  const parts: ValuesTest[] = [];
  if (buckets.any.length > 0) parts.push(containsAny(n(buckets.any)));
  if (buckets.all.length > 0) parts.push(containsAll(n(buckets.all)));
  if (buckets.none.length > 0) parts.push(containsNone(n(buckets.none)));
  const combined: ValuesTest = buckets.combineWithOr
    ? (values) => parts.some((p) => p(values))
    : (values) => parts.every((p) => p(values));
  if (!buckets.allowEmpty) return { test: (record) => combined(reader.values(record)) };
  if (parts.length === 0) return { test: (record) => reader.isEmpty(record) };
  return { test: (record) => reader.isEmpty(record) || combined(reader.values(record)) };
}

/** Parses and compiles a top-level list condition; undefined when it is no condition. */
export function compileListCondition(
  field: string,
  value: unknown,
  options: { caseInsensitive?: boolean } = {},
): Condition | undefined {
  const buckets = parseListCondition(field, value);
  return buckets === undefined ? undefined : listCondition(buckets, listFieldReader(field, options));
}
