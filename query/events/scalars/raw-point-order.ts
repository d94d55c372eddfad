/**
 * The order of scalar_metrics_iter_raw pages (events.md §4.3): x ascending,
 * ties by timestamp then arrival, and a value of x never split across
 * pages. Pure: store/scalar-raw-pages.ts reads the points.
 */

export interface RawPoint {
  variant: string;
  x: number;
  y: number;
  ts: number;
  seq: number;
}

export const byXThenArrival = (a: RawPoint, b: RawPoint) => a.x - b.x || a.ts - b.ts || a.seq - b.seq;

/** How many of the sorted points form the page: `batch`, plus the rest of the last x. */
export function pageLength(points: readonly { x: number }[], batch: number): number {
  let take = Math.min(batch, points.length);
  while (take > 0 && take < points.length && points[take]!.x === points[take - 1]!.x) take++;
  return take;
}

/**
 * Orders the points sharing an x (InfluxDB already sorted by x): a full sort of 200k points cost
 * ~100 ms, and sorting each run through a slice still ~15 ms (a run per iteration, one point per
 * variant); runs are short, so they are sorted in place by insertion.
 */
export function sortTies(points: RawPoint[]): void {
  for (let start = 0; start < points.length;) {
    let end = start + 1;
    while (end < points.length && points[end]!.x === points[start]!.x) end++;
    for (let i = start + 1; i < end; i++) {
      const point = points[i]!;
      let j = i - 1;
      while (j >= start && byXThenArrival(points[j]!, point) > 0) {
        points[j + 1] = points[j]!;
        j--;
      }
      points[j + 1] = point;
    }
    start = end;
  }
}

export function isSorted(points: readonly RawPoint[]): boolean {
  for (let i = 1; i < points.length; i++) if (byXThenArrival(points[i - 1]!, points[i]!) > 0) return false;
  return true;
}

/** The first `batch` points of the merged lists plus the rest of the last x. */
export function mergeSorted(lists: readonly RawPoint[][], batch: number): RawPoint[] {
  const at = lists.map(() => 0);
  const out: RawPoint[] = [];
  for (;;) {
    let best = -1;
    for (let l = 0; l < lists.length; l++) {
      if (at[l]! < lists[l]!.length && (best < 0 || byXThenArrival(lists[l]![at[l]!]!, lists[best]![at[best]!]!) < 0))
        best = l;
    }
    if (best < 0) return out;
    const next = lists[best]![at[best]!]!;
    if (out.length >= batch && next.x !== out[out.length - 1]!.x) return out;
    out.push(next);
    at[best]!++;
  }
}
