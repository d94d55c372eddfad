/**
 * Selection and paging of events.get_multi_task_plots (events.md §7.2) and
 * events.get_task_plots (§7.1) over in-memory plot events. Positions are
 * the sort key of the last event returned, so a cursor resumes strictly
 * after it even if new plots arrive meanwhile.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import { indexAfter } from '../common/sorted-pages.js';

export const MULTI_TASK_PLOTS_PAGE_SIZE = 1000;
export const MULTI_TASK_PLOTS_TOTAL_CAP = 10_000;
export const TASK_PLOTS_PAGE_SIZE = 10_000;

export interface MultiTaskPlotCandidate {
  /** Task or model id. */
  readonly entity: string;
  readonly metric: string;
  readonly variant: string;
  readonly iter: number;
}

export type MultiTaskPlotsPosition = Pick<MultiTaskPlotCandidate, 'entity' | 'metric' | 'variant' | 'iter'>;

/** iter descending; ties by entity, metric, variant ascending. */
export function compareMultiTaskPlots(a: MultiTaskPlotsPosition, b: MultiTaskPlotsPosition): number {
  return (
    b.iter - a.iter ||
    compareCodePoints(a.entity, b.entity) ||
    compareCodePoints(a.metric, b.metric) ||
    compareCodePoints(a.variant, b.variant)
  );
}

/**
 * The candidates, ordered: events whose iteration is among the `iters`
 * highest distinct iterations of their (entity, metric) — or of their
 * entity when `lastItersPerTaskMetric` is false. `matching` are the plot
 * events of the listed entities that pass the metric filter and have an iteration.
 */
export function multiTaskPlotCandidates<E extends MultiTaskPlotCandidate>(
  matching: Iterable<E>,
  iters: number,
  lastItersPerTaskMetric: boolean,
): E[] {
  const all = [...matching];
  const scope = (e: E) => (lastItersPerTaskMetric ? JSON.stringify([e.entity, e.metric]) : e.entity);
  const iterations = new Map<string, Set<number>>();
  for (const e of all) {
    const key = scope(e);
    const set = iterations.get(key);
    if (set === undefined) iterations.set(key, new Set([e.iter]));
    else set.add(e.iter);
  }
  const selected = new Map<string, Set<number>>();
  for (const [key, set] of iterations) selected.set(key, new Set([...set].sort((a, b) => b - a).slice(0, iters)));
  return all.filter((e) => selected.get(scope(e))!.has(e.iter)).sort(compareMultiTaskPlots);
}

export interface EntityIterationPlots<E> {
  name: string;
  plots: E[];
}

/** plots[metric][variant][entity id][decimal iter]; null-prototype objects, so any metric name is a safe key. */
export type MultiTaskPlotsMap<E> = Record<
  string,
  Record<string, Record<string, Record<string, EntityIterationPlots<E>>>>
>;

export interface MultiTaskPlotsPage<E> {
  plots: MultiTaskPlotsMap<E>;
  /** Distinct metrics in `plots` (ClearML counts top-level keys). */
  returned: number;
  /** min(candidates, 10000): the caller keeps the first call's value in the cursor. */
  total: number;
  /** Position after this page (unchanged when the page is empty). */
  position: MultiTaskPlotsPosition | null;
}

/**
 * The page after `position` (null: the first): the next 1000 candidates,
 * grouped by (metric, variant, entity), keeping in each group the `iters`
 * events with the highest iterations.
 */
export function multiTaskPlotsPage<E extends MultiTaskPlotCandidate>(
  candidates: readonly E[],
  request: {
    readonly iters: number;
    readonly position: MultiTaskPlotsPosition | null;
    readonly nameOf: (entity: string) => string;
  },
): MultiTaskPlotsPage<E> {
  const { position } = request;
  const start = position === null ? 0 : indexAfter(candidates, (e) => compareMultiTaskPlots(e, position));
  const page = candidates.slice(start, start + MULTI_TASK_PLOTS_PAGE_SIZE);
  const plots: MultiTaskPlotsMap<E> = Object.create(null);
  const keptPerGroup = new Map<string, number>();
  for (const e of page) {
    const group = JSON.stringify([e.metric, e.variant, e.entity]);
    const kept = keptPerGroup.get(group) ?? 0;
    if (kept >= request.iters) continue;
    keptPerGroup.set(group, kept + 1);
    const byEntity = child(child(child(plots, e.metric), e.variant), e.entity);
    const key = String(e.iter);
    (byEntity[key] ??= { name: request.nameOf(e.entity), plots: [] }).plots.push(e);
  }
  const last = page[page.length - 1];
  return {
    plots,
    returned: Object.keys(plots).length,
    total: Math.min(candidates.length, MULTI_TASK_PLOTS_TOTAL_CAP),
    position:
      last === undefined
        ? position
        : { entity: last.entity, metric: last.metric, variant: last.variant, iter: last.iter },
  };
}

function child<T>(parent: Record<string, T>, key: string): T {
  return (parent[key] ??= Object.create(null) as T);
}

export interface TaskPlotCandidate {
  readonly metric: string;
  readonly variant: string;
  /** Absent ranks below every iteration. */
  readonly iter?: number | null;
  readonly valid_plot?: boolean;
}

/** Where a get_task_plots page ended; `iter` null is the no-iteration rank. */
export interface TaskPlotsPosition {
  readonly metric: string;
  readonly variant: string;
  readonly iter: number | null;
}

const rank = (iter: number | null | undefined): number => (iter === undefined || iter === null ? -Infinity : iter);

/** metric ascending, variant ascending, iteration descending (events without iter last). */
export function compareTaskPlots(
  a: TaskPlotsPosition | TaskPlotCandidate,
  b: TaskPlotsPosition | TaskPlotCandidate,
): number {
  const byName = compareCodePoints(a.metric, b.metric) || compareCodePoints(a.variant, b.variant);
  if (byName !== 0) return byName;
  const ra = rank(a.iter);
  const rb = rank(b.iter);
  return ra === rb ? 0 : ra > rb ? -1 : 1;
}

/**
 * get_task_plots' selection, ordered: plots not marked `valid_plot: false`,
 * for each (metric, variant) the `iters` events with the greatest iterations.
 */
export function selectTaskPlots<E extends TaskPlotCandidate>(events: Iterable<E>, iters: number): E[] {
  const sorted = [...events].filter((e) => e.valid_plot !== false).sort(compareTaskPlots);
  const selected: E[] = [];
  let taken = 0;
  for (let i = 0; i < sorted.length; i++) {
    const e = sorted[i]!;
    const previous = sorted[i - 1];
    taken = previous !== undefined && previous.metric === e.metric && previous.variant === e.variant ? taken + 1 : 0;
    if (taken < iters) selected.push(e);
  }
  return selected;
}

export interface TaskPlotsPage<E> {
  plots: E[];
  /** Number of selected events, not capped. */
  total: number;
  /** Position after this page (unchanged when the page is empty). */
  position: TaskPlotsPosition | null;
}

/** The page of at most 10000 selected plots after `position` (null: the first). */
export function taskPlotsPage<E extends TaskPlotCandidate>(
  selected: readonly E[],
  position: TaskPlotsPosition | null,
  pageSize = TASK_PLOTS_PAGE_SIZE,
): TaskPlotsPage<E> {
  const start = position === null ? 0 : indexAfter(selected, (e) => compareTaskPlots(e, position));
  const plots = selected.slice(start, start + pageSize);
  const last = plots[plots.length - 1];
  return {
    plots,
    total: selected.length,
    position: last === undefined ? position : { metric: last.metric, variant: last.variant, iter: last.iter ?? null },
  };
}
