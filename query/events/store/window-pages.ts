/**
 * Store side of the iteration windows of events.plots (events.md §7.3) and
 * events.debug_images (§8.1); the rules are navigation/plot-window-navigation.ts.
 *
 * A page reads narrow rows first — per variant, the distinct iterations
 * nearest the start within the window bounds, which include the `iters`
 * nearest over the task — then the events of the chosen iterations, which
 * are contiguous among the candidates, so one time range covers them.
 *
 * Every image file (key) is a series of its own, and InfluxDB's cost grows
 * with the series a statement opens, so image reads open as few as they
 * can: narrow rows carry the key, and are read until each variant's
 * iterations in the page are complete (one distinct iteration beyond
 * them), so that the events are read from the page's files only.
 *
 * A fresh image page is read from the image index the writer keeps
 * (image-index-reads.ts) when it can answer: it names the page's files and
 * each variant's validity without opening every file of the variant.
 *
 * A fresh state (no scroll id, or refresh) is read while its first page
 * is: which variants have events comes from InfluxDB, the store the pages
 * are read from (the metric listing is applied after the points, so a
 * state built from it could briefly miss variants whose events are
 * visible). For images, the page's narrow rows already say which variants
 * have images with a url and hold every use at each one's greatest
 * iteration, the first facts of their validity; the rest of the validity
 * is read while the page's events are.
 */
import { influxQlString } from '../../../shared/events/storage-layout.js';
import type { TaskMetricSelection } from '../common/metric-variants.js';
import type { QueryDeps } from '../../query-deps.js';
import {
  newWindowTaskState,
  pickWindowIterations,
  stepWindowTask,
  windowBounds,
  type PresentVariant,
  type WindowBounds,
  type WindowKind,
  type WindowTaskState,
} from '../navigation/plot-window-navigation.js';
import { imageValidity } from './debug-image-validity-store.js';
import { indexedNewest, type IndexedNewest } from './image-index-reads.js';
import { withPlotBodies } from './plot-bodies.js';
import {
  decodeEvents,
  decodePositions,
  HAS_ITER,
  iterTime,
  metricFilterCondition,
  metricsCondition,
  nearestPerVariant,
  runStatement,
  scopeCondition,
  seriesCondition,
  where,
  type EventPosition,
} from './plot-image-influx.js';
import type { Namespace } from './entity-access.js';
import type { StoredEvent } from './stored-events.js';

const SPEC = {
  plots: { measurement: 'plot', narrowFields: '"len"' },
  debug_images: { measurement: 'image', narrowFields: '"u","k"' },
} as const;

/** Beyond this many image files in one page, its events are read by metric rather than by file (a statement's size). */
const MAX_PAGE_FILES = 500;

export interface WindowPage {
  iterations: Array<{ iter: number; events: StoredEvent[] }>;
  state: WindowTaskState;
}

interface PageRequest {
  readonly iters: number;
  readonly navigateEarlier: boolean;
}

/**
 * What a fresh page reads from Redis before InfluxDB: for images, the
 * index (undefined when it cannot answer, and for plots). Its key is the
 * caller's company's own, so it may be read while the entity is checked.
 */
export async function freshPageIndex(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  kind: WindowKind,
  selection: TaskMetricSelection,
  iters: number,
): Promise<IndexedNewest | undefined> {
  return kind === 'debug_images'
    ? indexedNewest(deps, company, namespace, selection.task, selection.metrics, iters)
    : undefined;
}

/** A fresh state for the selection (positions none) and its first page, with the positions moved. */
export async function firstWindowPage(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  kind: WindowKind,
  selection: TaskMetricSelection,
  request: PageRequest,
  indexed: IndexedNewest | undefined,
): Promise<WindowPage> {
  const scope = scopeCondition(company, namespace, [selection.task]);
  const bounds = windowBounds({ last_max_iter: null, last_min_iter: null }, request.navigateEarlier);
  const selected = where(scope, metricFilterCondition(selection.metrics));
  const narrow = indexed?.rows ?? (await narrowRows(deps, kind, selected, bounds, request.iters));
  const chosen = pickWindowIterations(
    narrow.map((p) => p.iter!),
    bounds,
    request.iters,
  );
  const [present, events] = await Promise.all([
    kind === 'debug_images' ? imageValidity(deps, scope, narrow, indexed?.lastInvalid) : plotVariants(deps, selected),
    pageEvents(deps, kind, selected, narrow, chosen),
  ]);
  return withBodies(deps, company, namespace, step(newWindowTaskState(selection, present), events, kind, request));
}

/** The next page of one task, and its state with the positions moved. */
export async function windowPage(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  kind: WindowKind,
  state: WindowTaskState,
  request: PageRequest,
): Promise<WindowPage> {
  if (state.metrics.length === 0) return { iterations: [], state };
  const bounds = windowBounds(state, request.navigateEarlier);
  const scope = scopeCondition(company, namespace, [state.task]);
  const selected = where(
    scope,
    metricsCondition(state.metrics.map((m) => ({ metric: m.metric, variants: m.requested_variants }))),
  );
  const narrow = await narrowRows(deps, kind, selected, bounds, request.iters);
  const chosen = pickWindowIterations(
    narrow.map((p) => p.iter!),
    bounds,
    request.iters,
  );
  return withBodies(
    deps,
    company,
    namespace,
    step(state, await pageEvents(deps, kind, selected, narrow, chosen), kind, request),
  );
}

/** A plot page's bodies, read for the plots it shows only (plot-bodies.ts). */
async function withBodies(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  page: WindowPage,
): Promise<WindowPage> {
  await withPlotBodies(
    deps.influx,
    company,
    namespace,
    page.iterations.flatMap((i) => i.events),
  );
  return page;
}

/**
 * Per variant, rows nearest the start within the bounds until they hold
 * `iters` + 1 distinct iterations (or the variant has no more): the first
 * `iters` are then complete, every image of them included.
 */
function narrowRows(
  deps: QueryDeps,
  kind: WindowKind,
  selected: string,
  bounds: WindowBounds,
  iters: number,
): Promise<EventPosition[]> {
  const spec = SPEC[kind];
  return nearestPerVariant(
    deps.influx,
    {
      select: spec.narrowFields,
      from: spec.measurement,
      condition: where(
        selected,
        HAS_ITER,
        bounds.below === undefined ? undefined : `time < ${iterTime(bounds.below)}`,
        bounds.above === undefined ? undefined : `time > ${iterTime(bounds.above)}`,
      ),
      order: bounds.earlier ? 'DESC' : 'ASC',
      want: iters + 1,
    },
    (rows) => new Set(rows.map((r) => r.iter)).size > iters,
  );
}

/** The events of the chosen iterations: for images, of the files the narrow rows found there. */
async function pageEvents(
  deps: QueryDeps,
  kind: WindowKind,
  selected: string,
  narrow: readonly EventPosition[],
  chosen: readonly number[],
): Promise<PageEvent[]> {
  if (chosen.length === 0) return [];
  const spec = SPEC[kind];
  const lo = Math.min(...chosen);
  const hi = Math.max(...chosen);
  const files = kind === 'debug_images' ? filesOf(narrow.filter((p) => p.iter! >= lo && p.iter! <= hi)) : undefined;
  const rows = await runStatement(
    deps.influx,
    `SELECT * FROM "${spec.measurement}" WHERE ${where(selected, files, `time >= ${iterTime(lo)}`, `time <= ${iterTime(hi)}`)}`,
  );
  return decodeEvents(rows, spec.measurement).map(({ event, iter, timestamp }) => ({
    iter: iter!,
    metric: event.metric as string,
    variant: event.variant as string,
    timestamp,
    url: event.url as string | undefined,
    event,
  }));
}

/** The image series of these rows as one condition; undefined (the whole selection) when they are too many to list. */
function filesOf(rows: readonly EventPosition[]): string | undefined {
  const files = new Map<string, string>();
  for (const p of rows) {
    // Keys come back as stored (encoded); an image without key has none ("" selects series without the tag).
    const key = typeof p.fields.k === 'string' ? p.fields.k : '';
    const condition = `(${seriesCondition(p.metric, p.variant)} AND "k" = ${influxQlString(key)})`;
    files.set(condition, condition);
  }
  if (files.size === 0 || files.size > MAX_PAGE_FILES) return undefined;
  return `(${[...files.keys()].join(' OR ')})`;
}

/** The selected plot variants with events, with an iteration or not (a state lists them all). */
async function plotVariants(deps: QueryDeps, selected: string): Promise<PresentVariant[]> {
  const latest = await runStatement(
    deps.influx,
    `SELECT "len" FROM "plot" WHERE ${selected} GROUP BY "m","v" ORDER BY time DESC LIMIT 1`,
  );
  return decodePositions(latest).map((p) => ({ metric: p.metric, variant: p.variant }));
}

interface PageEvent {
  iter: number;
  metric: string;
  variant: string;
  timestamp: number;
  url: string | undefined;
  event: StoredEvent;
}

function step(
  state: WindowTaskState,
  events: readonly PageEvent[],
  kind: WindowKind,
  request: PageRequest,
): WindowPage {
  const moved = stepWindowTask(state, events, { kind, iters: request.iters, navigateEarlier: request.navigateEarlier });
  return {
    iterations: moved.iterations.map(({ iter, events: shown }) => ({ iter, events: shown.map((e) => e.event) })),
    state: moved.state,
  };
}
