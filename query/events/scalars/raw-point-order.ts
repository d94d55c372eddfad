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

/** How many of the sorted points (their x) form the page: `batch`, plus the rest of the last x. */
export function pageLength(x: ArrayLike<number>, batch: number): number {
  let take = Math.min(batch, x.length);
  while (take > 0 && take < x.length && x[take] === x[take - 1]) take++;
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

/**
 * A page's points as columns, x ascending, points sharing an x in any order.
 * Timestamp and arrival are asked only for what orders the answer's variants:
 * reading them for every point of a 200k-point page cost ~15% of its parse.
 */
export interface RawColumns {
  readonly length: number;
  readonly x: ArrayLike<number>;
  /** Each row's y, or what stands for it in the page's answer (store/raw-page-csv.ts: a reference to its JSON text). */
  readonly y: ArrayLike<number>;
  readonly variant: readonly string[];
  arrival(i: number): { ts: number; seq: number };
}

/** One variant's points of a page, in page order (y as the page holds it: RawColumns.y). */
export interface RawSeries {
  variant: string;
  x: number[];
  y: number[];
}

/**
 * Each variant's points, variants in the order their first points take in
 * the page's order (x, timestamp, arrival), as grouping the sorted page
 * would give, without sorting it or making an object per point. Within a
 * variant x is unique (one point per series and time), so its points keep
 * the columns' order; should two share an x, the page is sorted whole.
 */
export function seriesOfPage(page: RawColumns): RawSeries[] {
  const groups = new Map<string, RawSeries & { firstX: number; firstRow: number }>();
  for (let i = 0; i < page.length; i++) {
    const x = page.x[i]!;
    const variant = page.variant[i]!;
    let group = groups.get(variant);
    if (group === undefined) groups.set(variant, (group = { variant, x: [], y: [], firstX: x, firstRow: i }));
    else if (group.x[group.x.length - 1] === x) return seriesOfPoints(pointsOf(page));
    group.x.push(x);
    group.y.push(page.y[i]!);
  }
  const all = [...groups.values()];
  const sharing = new Map<number, number>();
  for (const g of all) sharing.set(g.firstX, (sharing.get(g.firstX) ?? 0) + 1);
  // Only variants whose first points share an x need their timestamps and arrivals.
  const order = all.map((g) => ({ g, first: sharing.get(g.firstX)! > 1 ? page.arrival(g.firstRow) : undefined }));
  order.sort((a, b) => a.g.firstX - b.g.firstX || a.first!.ts - b.first!.ts || a.first!.seq - b.first!.seq);
  return order.map(({ g }) => ({ variant: g.variant, x: g.x, y: g.y }));
}

function pointsOf(page: RawColumns): RawPoint[] {
  return Array.from({ length: page.length }, (_, i) => ({
    variant: page.variant[i]!,
    x: page.x[i]!,
    y: page.y[i]!,
    ...page.arrival(i),
  }));
}

/** Grouping of whole points (sorted by x, then ties by timestamp and arrival). */
export function seriesOfPoints(points: RawPoint[]): RawSeries[] {
  sortTies(points);
  const groups = new Map<string, RawSeries>();
  for (const p of points) {
    let group = groups.get(p.variant);
    if (group === undefined) groups.set(p.variant, (group = { variant: p.variant, x: [], y: [] }));
    group.x.push(p.x);
    group.y.push(p.y);
  }
  return [...groups.values()];
}
