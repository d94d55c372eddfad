/**
 * Cross-type value order used by `order_by` (reports.md §4.8), after MongoDB's:
 * null < numbers < strings < objects < arrays < booleans < date-times;
 * strings by code point.
 */
import { compareCodePoints } from '../../events/common/code-point-order.js';

export const Rank = {
  Null: 0,
  Number: 1,
  String: 2,
  Object: 3,
  Array: 4,
  Boolean: 5,
  DateTime: 6,
} as const;
export type Rank = (typeof Rank)[keyof typeof Rank];

/** A value ready for comparison; date-times are stored as numbers, so their rank is set by the field. */
export interface SortValue {
  readonly rank: Rank;
  readonly value: unknown;
}

export const NULL_VALUE: SortValue = { rank: Rank.Null, value: null };

export function rankOf(value: unknown): Rank {
  if (value === undefined || value === null) return Rank.Null;
  if (typeof value === 'number') return Rank.Number;
  if (typeof value === 'string') return Rank.String;
  if (typeof value === 'boolean') return Rank.Boolean;
  if (Array.isArray(value)) return Rank.Array;
  if (value instanceof Date) return Rank.DateTime;
  return Rank.Object;
}

export function compareSortValues(a: SortValue, b: SortValue): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  return compareSameRank(a.rank, a.value, b.value);
}

export function compareValues(a: unknown, b: unknown): number {
  const ra = rankOf(a);
  const rb = rankOf(b);
  return ra !== rb ? ra - rb : compareSameRank(ra, a, b);
}

function compareSameRank(rank: Rank, a: unknown, b: unknown): number {
  switch (rank) {
    case Rank.Null:
      return 0;
    case Rank.Number:
      return (a as number) - (b as number);
    case Rank.String:
      return compareCodePoints(a as string, b as string);
    case Rank.Boolean:
      return Number(a) - Number(b);
    case Rank.DateTime:
      return toMs(a) - toMs(b);
    case Rank.Array:
      return compareSequences(a as unknown[], b as unknown[]);
    case Rank.Object:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
  }
}

const toMs = (v: unknown) => (v instanceof Date ? v.getTime() : (v as number));

function compareSequences(a: readonly unknown[], b: readonly unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Objects compare member by member: name first, then value (BSON order). */
function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const ea = Object.entries(a);
  const eb = Object.entries(b);
  for (let i = 0; i < Math.min(ea.length, eb.length); i++) {
    const [ka, va] = ea[i]!;
    const [kb, vb] = eb[i]!;
    const c = compareCodePoints(ka, kb) || compareValues(va, vb);
    if (c !== 0) return c;
  }
  return ea.length - eb.length;
}
