/**
 * Plot bodies for plots whose positions are already chosen. Pages are
 * chosen on narrow rows (time and tags, no plot_str) so that only the plots
 * actually returned are transferred; this reads them back with one window
 * per series, all windows in a few requests.
 *
 * A body lives in `plot_body`, in the series of its bucket of iterations
 * (storage-layout plotBodyBucket), so a read names the buckets of the
 * wanted iterations and decodes at most a bucket's bodies, not the whole
 * variant's. Plots stored before that layout (2026-11-24) have their body
 * in the `plot` point's `p` field and none in `plot_body`: a body found in
 * `plot_body` wins (it is the newer: re-reporting an old plot writes one
 * there and leaves the old `p`), else the `plot` point's `p` is the body.
 */
import {
  encodeTagValue,
  FIELD,
  influxQlIdentifier,
  influxQlString,
  iterFromTime,
  NO_ITER_TIME_TEXT,
  PLOT_BODY_MEASUREMENT,
  plotBodyBucket,
} from '../../../shared/events/storage-layout.js';
import type { InfluxSeries, InfluxStore } from '../../../shared/stores/influx-store.js';
import type { QueryDeps } from '../../query-deps.js';
import { decodeEvents, iterTime, runStatements, scopeCondition, seriesCondition, where } from './plot-image-influx.js';
import type { Namespace } from './entity-access.js';
import { decodePlotString, type StoredEvent } from './stored-events.js';

/**
 * The fields of a `plot` point for reads that pick their plots from
 * points (positions carrying them as `point` need only their bodies
 * read): every field, `p` included, which plots stored before plot_body
 * hold and later ones lack (a field a series lacks costs nothing to ask for).
 */
export const PLOT_POINT_FIELDS = [
  FIELD.plotLength,
  FIELD.validPlot,
  FIELD.sourceUrls,
  FIELD.timestamp,
  FIELD.receivedAt,
  FIELD.worker,
  FIELD.seq,
  FIELD.plot,
]
  .map(influxQlIdentifier)
  .join(',');

export interface PlotPositionRef {
  readonly entity: string;
  readonly metric: string;
  readonly variant: string;
  /** null: the no-iteration plot of the series. */
  readonly iter: number | null;
  /** The plot point's columns (time and PLOT_POINT_FIELDS) when the caller read them; else they are read here. */
  readonly point?: Readonly<Record<string, unknown>>;
}

/** A position's key: its series' key and its iteration (`null` for none). */
export const plotRefKey = (p: PlotPositionRef): string => `${seriesKey(p)}${p.iter}`;

/**
 * One key per (entity, metric, variant), whatever characters they hold: each part is preceded
 * by its length, so no two triples read alike (JSON.stringify did the same at several times the cost).
 */
const seriesKey = (p: PlotPositionRef): string =>
  `${p.entity.length}:${p.entity}${p.metric.length}:${p.metric}${p.variant.length}:${p.variant}`;

interface SeriesWindow {
  readonly ref: PlotPositionRef;
  lo: number | null;
  hi: number | null;
  readonly buckets: Set<string>;
}

/** The stored plot events at these positions, by plotRefKey (positions without a stored plot are missing). */
export async function fetchPlotEvents(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  positions: readonly PlotPositionRef[],
): Promise<Map<string, StoredEvent>> {
  const windows = seriesWindows(positions);
  const statements = seriesWindows(positions.filter((p) => p.point === undefined)).map(
    ({ ref, lo, hi }) =>
      `SELECT * FROM "plot" WHERE ${where(scopeCondition(company, namespace, [ref.entity]), seriesCondition(ref.metric, ref.variant), timeWindow(lo, hi))}`,
  );
  const wanted = new Set(positions.map(plotRefKey));
  const found = new Map<string, StoredEvent>();
  // The points and the bodies are read at once: the positions say which buckets to read.
  const [results, bodies] = await Promise.all([
    runStatements(deps.influx, statements),
    readBodies(deps.influx, company, namespace, windows),
  ]);
  const series = [...pointsSeries(positions, namespace), ...results.flatMap((r) => r.series ?? [])];
  for (const { event, iter } of decodeEvents(series, 'plot')) {
    const key = plotRefKey({
      entity: event.task as string,
      metric: event.metric as string,
      variant: event.variant as string,
      iter: iter ?? null,
    });
    if (!wanted.has(key)) continue;
    const body = bodies.get(key);
    if (body !== undefined) event.plot_str = decodePlotString(body);
    found.set(key, event);
  }
  return found;
}

/**
 * Gives plot events read from `plot` (SELECT *) their bodies from
 * `plot_body`; events of other types are left alone. For reads that find
 * their plots by other conditions than positions (a page of every event
 * type, a window of iterations, a sample).
 */
export async function withPlotBodies(
  influx: InfluxStore,
  company: string,
  namespace: Namespace,
  events: readonly StoredEvent[],
): Promise<void> {
  const refs = new Map<string, { ref: PlotPositionRef; event: StoredEvent }>();
  for (const event of events) {
    if (event.type !== 'plot') continue;
    const ref: PlotPositionRef = {
      entity: event.task as string,
      metric: event.metric as string,
      variant: event.variant as string,
      iter: (event.iter as number | undefined) ?? null,
    };
    refs.set(plotRefKey(ref), { ref, event });
  }
  if (refs.size === 0) return;
  const bodies = await readBodies(influx, company, namespace, seriesWindows([...refs.values()].map((r) => r.ref)));
  for (const [key, body] of bodies) {
    const target = refs.get(key);
    if (target !== undefined) target.event.plot_str = decodePlotString(body);
  }
}

/**
 * The points the callers read, as the answer of a SELECT of their series: one series whose rows
 * carry their tags as columns (InfluxRowReader reads a tag from a column first), so that the
 * rows are decoded by one reader, as a page of SELECT * is. Points of one read share their
 * columns; points with other columns go in a series of their own.
 */
function pointsSeries(positions: readonly PlotPositionRef[], namespace: Namespace): InfluxSeries[] {
  const byColumns = new Map<string, InfluxSeries>();
  for (const p of positions) {
    if (p.point === undefined) continue;
    const columns = Object.keys(p.point);
    const signature = columns.join(',');
    let series = byColumns.get(signature);
    if (series === undefined)
      byColumns.set(signature, (series = { name: 'plot', columns: [...columns, 'e', 'm', 'v', 'n'], values: [] }));
    const tags = [encodeTagValue(p.entity), encodeTagValue(p.metric), encodeTagValue(p.variant), namespace];
    series.values.push([...Object.values(p.point), ...tags]);
  }
  return [...byColumns.values()];
}

/** Per series, the iterations to read and the buckets that hold them. */
function seriesWindows(positions: readonly PlotPositionRef[]): SeriesWindow[] {
  const windows = new Map<string, SeriesWindow>();
  for (const p of positions) {
    const key = seriesKey(p);
    const bucket = plotBodyBucket(p.iter ?? undefined);
    const w = windows.get(key);
    if (w === undefined) windows.set(key, { ref: p, lo: p.iter, hi: p.iter, buckets: new Set([bucket]) });
    else {
      w.lo = minIter(w.lo, p.iter);
      w.hi = maxIter(w.hi, p.iter);
      w.buckets.add(bucket);
    }
  }
  return [...windows.values()];
}

/** The stored bodies (`p` or `z` form) in plot_body of these windows, by plotRefKey. */
async function readBodies(
  influx: InfluxStore,
  company: string,
  namespace: Namespace,
  windows: readonly SeriesWindow[],
): Promise<Map<string, string>> {
  const statements = windows.map(({ ref, lo, hi, buckets }) => {
    const inBuckets = [...buckets].map((b) => `"b" = ${influxQlString(b)}`).join(' OR ');
    // One statement per series: the answer's rows need no tags to say whose they are.
    return `SELECT "p" FROM "${PLOT_BODY_MEASUREMENT}" WHERE ${where(scopeCondition(company, namespace, [ref.entity]), seriesCondition(ref.metric, ref.variant), `(${inBuckets})`, timeWindow(lo, hi))}`;
  });
  const bodies = new Map<string, string>();
  const results = await runStatements(influx, statements);
  results.forEach((result, i) => {
    const { ref } = windows[i]!;
    for (const series of result.series ?? []) {
      const timeAt = series.columns.indexOf('time');
      const bodyAt = series.columns.indexOf('p');
      for (const row of series.values) {
        const body = row[bodyAt];
        if (typeof body !== 'string') continue;
        const iter = iterFromTime(row[timeAt] as number) ?? null;
        bodies.set(plotRefKey({ entity: ref.entity, metric: ref.metric, variant: ref.variant, iter }), body);
      }
    }
  });
  return bodies;
}

function timeWindow(lo: number | null, hi: number | null): string {
  const from = lo === null ? NO_ITER_TIME_TEXT : iterTime(lo);
  const to = hi === null ? NO_ITER_TIME_TEXT : iterTime(hi);
  return `time >= ${from} AND time <= ${to}`;
}

// null (no iteration) ranks below every iteration.
function minIter(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.min(a, b);
}

function maxIter(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
