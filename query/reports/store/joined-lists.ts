/**
 * Concatenation of per-company lists that answers the same array as long as
 * the parts are the same arrays, so that a caller can tell unchanged inputs
 * by identity (selection-memo.ts) and the common case (one company with
 * records, no public ones) costs no copy.
 */
export class JoinedLists<T> {
  private last: { parts: ReadonlyArray<readonly T[]>; joined: readonly T[] } | undefined;

  join(parts: ReadonlyArray<readonly T[]>): readonly T[] {
    const filled = parts.filter((p) => p.length > 0);
    if (filled.length === 0) return EMPTY as readonly T[];
    if (filled.length === 1) return filled[0]!;
    if (this.last !== undefined && sameItems(this.last.parts, filled)) return this.last.joined;
    const joined = filled.flat() as readonly T[];
    this.last = { parts: filled, joined };
    return joined;
  }
}

const EMPTY: readonly never[] = Object.freeze([]);

/** Whether two lists hold the same items (by identity) in the same order. */
export function sameItems(a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
