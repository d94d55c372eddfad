/**
 * The single-plot viewer (events.md §7.4 get_plot_sample, §7.5
 * next_plot_sample) as pure steps over a JSON-serialisable state. The store
 * adapter loads the state, the plot events (or just their distinct
 * (iter, metric) pairs to pick, then the picked events) and saves the
 * returned state.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import { boundsOf, NO_ITERATION_BOUNDS, type IterationBounds } from '../navigation/sample-state.js';

export const MAX_SAMPLE_EVENTS = 100;

export interface MetricRange {
  readonly metric: string;
  readonly min_iteration: number;
  readonly max_iteration: number;
}

export interface PlotSampleState {
  readonly task: string;
  readonly navigate_current_metric: boolean;
  /** The current metric (the requested one until a sample is found). */
  readonly metric: string;
  /** The current iteration; null until a sample is found. */
  readonly iteration: number | null;
  /** Per metric, ascending by name: only the requested metric when navigate_current_metric. */
  readonly ranges: readonly MetricRange[];
}

/** Where a plot is, for navigation. */
export interface PlotPosition {
  readonly iter: number;
  readonly metric: string;
}

export interface PlotSampleEvent extends PlotPosition {
  readonly variant: string;
}

/** Smallest and greatest iteration of each metric's plot events, ascending by metric. */
export function plotMetricRanges(events: Iterable<PlotPosition>): MetricRange[] {
  const ranges = new Map<string, { min_iteration: number; max_iteration: number }>();
  for (const { metric, iter } of events) {
    const range = ranges.get(metric);
    if (range === undefined) ranges.set(metric, { min_iteration: iter, max_iteration: iter });
    else {
      if (iter < range.min_iteration) range.min_iteration = iter;
      if (iter > range.max_iteration) range.max_iteration = iter;
    }
  }
  return [...ranges].sort(([a], [b]) => compareCodePoints(a, b)).map(([metric, range]) => ({ metric, ...range }));
}

/**
 * A new state: `events` are the task's plot events with an iteration (of
 * the requested metric only, or of all metrics, as navigate_current_metric
 * says; a superset is filtered).
 */
export function newPlotSampleState(
  request: { readonly task: string; readonly metric: string; readonly navigate_current_metric: boolean },
  events: Iterable<PlotPosition>,
): PlotSampleState {
  const ranges = plotMetricRanges(
    request.navigate_current_metric ? filter(events, (e) => e.metric === request.metric) : events,
  );
  return {
    task: request.task,
    navigate_current_metric: request.navigate_current_metric,
    metric: request.metric,
    iteration: null,
    ranges,
  };
}

/** `refresh` on a live state: the ranges are recomputed, metric and iteration kept. */
export function refreshPlotSampleRanges(state: PlotSampleState, events: Iterable<PlotPosition>): PlotSampleState {
  return { ...state, ranges: newPlotSampleState(state, events).ranges };
}

export interface PlotSampleAnswer<E> extends IterationBounds {
  /** The state to save (unchanged when nothing was found). */
  state: PlotSampleState;
  /** False when nothing was found: next_plot_sample then must not save the state. */
  moved: boolean;
  /** Ascending by variant, at most MAX_SAMPLE_EVENTS. */
  events: E[];
}

/**
 * get_plot_sample after the state is obtained: the metric's events at the
 * greatest iteration <= `iteration` (any when absent). `metricEvents` are
 * the metric's plot events with an iteration (a superset is filtered).
 */
export function plotSample<E extends PlotSampleEvent>(
  state: PlotSampleState,
  metric: string,
  metricEvents: Iterable<E>,
  iteration?: number | null,
): PlotSampleAnswer<E> {
  const range = state.ranges.find((r) => r.metric === metric);
  if (range === undefined) return { state, moved: false, events: [], ...NO_ITERATION_BOUNDS };
  const events = [...filter(metricEvents, (e) => e.metric === metric)];
  let it: number | undefined;
  for (const e of events)
    if ((iteration === undefined || iteration === null || e.iter <= iteration) && (it === undefined || e.iter > it))
      it = e.iter;
  if (it === undefined) return { state, moved: false, events: [], ...boundsOf(range) };
  return {
    state: { ...state, metric, iteration: it },
    moved: true,
    events: sampleEvents(events.filter((e) => e.iter === it)),
    ...boundsOf(range),
  };
}

/**
 * next_plot_sample's choice among candidate positions (the task's plot
 * events, any superset): `<` when earlier, `>` when later, on the
 * iteration (next_iteration or navigate_current_metric), else on
 * (iteration, metric) in that order. A state without a current iteration
 * has no bound. Undefined when there is nothing that way.
 */
export function pickNextPlot(
  state: PlotSampleState,
  positions: Iterable<PlotPosition>,
  navigateEarlier: boolean,
  nextIteration: boolean,
): PlotPosition | undefined {
  const way = navigateEarlier ? -1 : 1;
  // beyond: strictly further in the navigation direction; within the picked
  // iteration the closest metric is the greatest (earlier) or smallest (later).
  const beyond = (x: number, current: number) => Math.sign(x - current) === way;
  const beyondName = (x: string, current: string) => Math.sign(compareCodePoints(x, current)) === way;
  const byIterationOnly = nextIteration || state.navigate_current_metric;
  let best: PlotPosition | undefined;
  for (const p of positions) {
    if (state.navigate_current_metric && p.metric !== state.metric) continue;
    if (state.iteration !== null) {
      const further =
        beyond(p.iter, state.iteration) ||
        (!byIterationOnly && p.iter === state.iteration && beyondName(p.metric, state.metric));
      if (!further) continue;
    }
    if (best === undefined || beyond(best.iter, p.iter) || (p.iter === best.iter && beyondName(best.metric, p.metric)))
      best = p;
  }
  return best === undefined ? undefined : { iter: best.iter, metric: best.metric };
}

/** next_plot_sample, whole: picks, then answers with the picked metric's events at the picked iteration. */
export function nextPlotSample<E extends PlotSampleEvent>(
  state: PlotSampleState,
  events: readonly E[],
  navigateEarlier: boolean,
  nextIteration: boolean,
): PlotSampleAnswer<E> {
  const picked = pickNextPlot(state, events, navigateEarlier, nextIteration);
  if (picked === undefined) return { state, moved: false, events: [], ...NO_ITERATION_BOUNDS };
  return movedTo(
    state,
    picked,
    events.filter((e) => e.iter === picked.iter && e.metric === picked.metric),
  );
}

/** The answer once the adapter has loaded the picked position's events. */
export function movedTo<E extends PlotSampleEvent>(
  state: PlotSampleState,
  picked: PlotPosition,
  eventsAtPick: readonly E[],
): PlotSampleAnswer<E> {
  return {
    state: { ...state, metric: picked.metric, iteration: picked.iter },
    moved: true,
    events: sampleEvents(eventsAtPick),
    ...boundsOf(state.ranges.find((r) => r.metric === picked.metric)),
  };
}

/** The events of one (metric, iteration), ascending by variant, at most MAX_SAMPLE_EVENTS. */
export function sampleEvents<E extends { readonly variant: string }>(events: readonly E[]): E[] {
  return [...events].sort((a, b) => compareCodePoints(a.variant, b.variant)).slice(0, MAX_SAMPLE_EVENTS);
}

function* filter<T>(items: Iterable<T>, keep: (item: T) => boolean): Iterable<T> {
  for (const item of items) if (keep(item)) yield item;
}
