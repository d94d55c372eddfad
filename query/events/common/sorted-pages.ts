/**
 * Paging over already-sorted lists, shared by the paged reads whose pages
 * never split a group (an iteration, a millisecond, an x value): resume
 * strictly after a position, merge the lists of several stores, extend the
 * page to the end of its last group.
 */

/** Index of the first item of `sorted` that `compareToPosition` places strictly after the position (binary search). */
export function indexAfter<T>(sorted: readonly T[], compareToPosition: (item: T) => number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareToPosition(sorted[mid]!) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface MergedPageOptions<T> {
  /** The order every source is sorted in. */
  readonly compare: (a: T, b: T) => number;
  /** Items of one group are never split across pages. */
  readonly sameGroup: (a: T, b: T) => boolean;
  readonly batchSize: number;
  /** Where to start in each source (default 0). */
  readonly start?: readonly number[];
}

/**
 * The first `batchSize` items of the merged sources, plus every further
 * item of the last item's group. Each source must hold, from its start, at
 * least its first `batchSize` items and the rest of that last item's group
 * (or everything it has): then the page is exact. Linear in page size times
 * the number of sources, which is small (one per store).
 */
export function mergedPage<T>(sources: readonly (readonly T[])[], options: MergedPageOptions<T>): T[] {
  const cursor = sources.map((_, i) => options.start?.[i] ?? 0);
  const next = (): number => {
    let best = -1;
    for (let s = 0; s < sources.length; s++) {
      if (cursor[s]! >= sources[s]!.length) continue;
      if (best === -1 || options.compare(sources[s]![cursor[s]!]!, sources[best]![cursor[best]!]!) < 0) best = s;
    }
    return best;
  };
  const page: T[] = [];
  for (;;) {
    const s = next();
    if (s === -1) break;
    const item = sources[s]![cursor[s]!]!;
    if (page.length >= options.batchSize && !options.sameGroup(item, page[page.length - 1]!)) break;
    page.push(item);
    cursor[s]!++;
  }
  return page;
}
