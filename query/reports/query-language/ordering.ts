/**
 * `order_by` (reports.md §4.8): validation and a comparator. The first key
 * (other than `@text_score`) puts missing / null / "" / [] last in both
 * directions; other keys sort missing first ascending. Arrays sort by their
 * smallest element ascending and largest descending; `id` ends every order.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { strList, validationErrorFrom } from '../../../shared/protocol/request-fields.js';
import type { FieldCatalogue } from './field-catalogue.js';
import { cannotResolveField } from './query-errors.js';
import { recordValue, splitPath } from './record-path.js';
import type { StoredRecord } from './types.js';
import { compareSortValues, compareValues, NULL_VALUE, Rank, rankOf, type SortValue } from './value-order.js';

export const TEXT_SCORE = '@text_score';

export interface SortKey {
  /** Dotted path, or `@text_score`. */
  readonly field: string;
  readonly descending: boolean;
}

export interface Ordering {
  readonly keys: readonly SortKey[];
  compare(a: StoredRecord, b: StoredRecord): number;
  /** A sorted copy; faster than sorting with `compare`. */
  sort(records: readonly StoredRecord[]): StoredRecord[];
}

const DEFAULT_ORDER: readonly SortKey[] = [
  { field: 'created', descending: false },
  { field: 'id', descending: false },
];

const orderBySchema = strList()('order_by');

/** Validated sort keys; `hasSearchText` tells whether `@text_score` is allowed. */
export function parseOrderBy(value: unknown, catalogue: FieldCatalogue, hasSearchText: boolean): SortKey[] {
  const parsed = orderBySchema.safeParse(typeof value === 'string' ? [value] : value);
  if (!parsed.success) throw validationErrorFrom(parsed.error);
  const entries = parsed.data ?? [];
  if (entries.length === 0) return [...DEFAULT_ORDER];
  const keys = entries.map((entry): SortKey => {
    if (entry === TEXT_SCORE) {
      if (!hasSearchText)
        throw apiError('invalid_fields', 'text score cannot be used in order_by when search text is not used');
      return { field: TEXT_SCORE, descending: true };
    }
    const descending = entry.startsWith('-');
    const field = descending ? entry.slice(1) : entry;
    if (field.startsWith('@') || !catalogue.knownFields.has(splitPath(field)[0]!)) throw cannotResolveField(field);
    return { field, descending };
  });
  if (!keys.some((k) => k.field === 'id')) keys.push({ field: 'id', descending: false });
  return keys;
}

interface PreparedKey {
  readonly path: readonly string[] | undefined;
  readonly descending: boolean;
  readonly missingLast: boolean;
  readonly dateTime: boolean;
}

interface Prepared {
  readonly values: SortValue[];
  readonly missing: boolean;
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** An array's representative: smallest element ascending, largest descending. */
function representative(value: unknown, descending: boolean): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 0) return null;
  return value.reduce((best, v) => {
    const c = compareValues(v, best);
    return (descending ? c > 0 : c < 0) ? v : best;
  });
}

export function compileOrdering(
  keys: readonly SortKey[],
  catalogue: FieldCatalogue,
  score?: (record: StoredRecord) => number,
): Ordering {
  const firstField = keys.findIndex((k) => k.field !== TEXT_SCORE);
  const prepared: PreparedKey[] = keys.map((k, i) => {
    const path = k.field === TEXT_SCORE ? undefined : splitPath(k.field);
    return {
      path,
      descending: k.descending,
      missingLast: i === firstField,
      dateTime: path !== undefined && path.length === 1 && catalogue.dateTimeFields.has(path[0]!),
    };
  });
  const prepare = (record: StoredRecord): Prepared => {
    let missing = false;
    const values = prepared.map((k): SortValue => {
      if (k.path === undefined) return { rank: Rank.Number, value: score ? score(record) : 0 };
      const raw = recordValue(record, k.path);
      if (k.missingLast && isMissing(raw)) missing = true;
      const value = representative(raw, k.descending);
      if (value === undefined || value === null) return NULL_VALUE;
      return { rank: k.dateTime && typeof value === 'number' ? Rank.DateTime : rankOf(value), value };
    });
    return { values, missing };
  };

  const comparePrepared = (pa: Prepared, pb: Prepared): number => {
    if (pa.missing !== pb.missing) return pa.missing ? 1 : -1;
    for (let i = 0; i < prepared.length; i++) {
      const k = prepared[i]!;
      if (k.missingLast && pa.missing) continue;
      const c = compareSortValues(pa.values[i]!, pb.values[i]!);
      if (c !== 0) return k.descending ? -c : c;
    }
    return 0;
  };

  const cache = new WeakMap<StoredRecord, Prepared>();
  const cached = (record: StoredRecord): Prepared => {
    let known = cache.get(record);
    if (!known) cache.set(record, (known = prepare(record)));
    return known;
  };

  return {
    keys,
    compare: (a, b) => comparePrepared(cached(a), cached(b)),
    sort(records) {
      // Sort keys are extracted once per record rather than once per comparison.
      return records
        .map((record) => ({ record, key: prepare(record) }))
        .sort((x, y) => comparePrepared(x.key, y.key))
        .map((x) => x.record);
    },
  };
}
