/**
 * Windows of iterations for events.plots (events.md §7.3) and
 * events.debug_images (§8.1): per task, pages of `iters` iterations moving
 * towards older or newer iterations from saved positions. Pure: the store
 * adapter loads candidate events (bounded with `windowBounds`) and saves
 * the returned task state.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import type { TaskMetricSelection } from '../common/metric-variants.js';
import { isImageShown } from '../debug-images/debug-image-validity.js';

export type WindowKind = 'plots' | 'debug_images';

export interface WindowPositions {
  readonly last_max_iter: number | null;
  readonly last_min_iter: number | null;
}

export interface WindowVariantState {
  readonly variant: string;
  /** Debug images only (§8.1): events up to this iteration are hidden; null: none. */
  readonly last_invalid_iteration: number | null;
}

export interface WindowMetricState {
  readonly metric: string;
  /** Variants the request named for this metric (only they are candidates); null: every variant. */
  readonly requested_variants: readonly string[] | null;
  /** Variants that had events when the state was built, ascending. */
  readonly variants: readonly WindowVariantState[];
}

/** One task of a navigation state (JSON-serialisable, for the state store). */
export interface WindowTaskState extends WindowPositions {
  readonly task: string;
  /** Metrics that had events when the state was built, ascending by name. */
  readonly metrics: readonly WindowMetricState[];
}

/** A variant found in the store while building a state. */
export interface PresentVariant {
  readonly metric: string;
  readonly variant: string;
  /** Debug images: `lastInvalidIteration` of the variant's (iter, url) events. */
  readonly last_invalid_iteration?: number | null;
}

/**
 * A task's fresh state (positions none) from the request's selection and
 * the variants that currently have events. Variants named by the request
 * but absent from the store stay requested: they are never shown.
 */
export function newWindowTaskState(selection: TaskMetricSelection, present: Iterable<PresentVariant>): WindowTaskState {
  const byMetric = new Map<string, WindowVariantState[]>();
  for (const p of present) {
    if (!selection.metrics.matches(p.metric, p.variant)) continue;
    const variants = byMetric.get(p.metric) ?? [];
    variants.push({ variant: p.variant, last_invalid_iteration: p.last_invalid_iteration ?? null });
    byMetric.set(p.metric, variants);
  }
  const requested = new Map(selection.metrics.metrics.map((m) => [m.metric, m.variants]));
  const metrics = [...byMetric]
    .sort(([a], [b]) => compareCodePoints(a, b))
    .map(([metric, variants]) => ({
      metric,
      requested_variants: requested.get(metric) ?? null,
      variants: variants.sort((a, b) => compareCodePoints(a.variant, b.variant)),
    }));
  return { task: selection.task, metrics, last_max_iter: null, last_min_iter: null };
}

export interface WindowBounds {
  /** True: highest iterations first (forced while last_max_iter is none). */
  readonly earlier: boolean;
  /** Only iterations strictly below this one. */
  readonly below?: number;
  /** Only iterations strictly above this one. */
  readonly above?: number;
}

/** Direction and iteration range of the next page, to bound the store query. */
export function windowBounds(positions: WindowPositions, navigateEarlier: boolean): WindowBounds {
  const earlier = navigateEarlier || positions.last_max_iter === null;
  if (earlier) return positions.last_min_iter === null ? { earlier } : { earlier, below: positions.last_min_iter };
  return positions.last_max_iter === null ? { earlier } : { earlier, above: positions.last_max_iter };
}

export function withinWindowBounds(iter: number, bounds: WindowBounds): boolean {
  return (bounds.below === undefined || iter < bounds.below) && (bounds.above === undefined || iter > bounds.above);
}

/** The `iters` distinct iterations within bounds closest to the start (highest first when earlier, lowest first when later). */
export function pickWindowIterations(iterations: Iterable<number>, bounds: WindowBounds, iters: number): number[] {
  const distinct = new Set<number>();
  for (const iter of iterations) if (withinWindowBounds(iter, bounds)) distinct.add(iter);
  return [...distinct].sort((a, b) => (bounds.earlier ? b - a : a - b)).slice(0, iters);
}

/** Variants returned per iteration and metric: floor(8000 / (metrics x iters)), at least 1. */
export function variantsPerMetricCap(metricCount: number, iters: number): number {
  return Math.max(1, Math.floor(8000 / (Math.max(1, metricCount) * iters)));
}

/** What a window needs to know of an event; adapters pass their full events. */
export interface WindowEvent {
  readonly iter: number;
  readonly metric: string;
  readonly variant: string;
  readonly timestamp: number;
  readonly url?: string | null;
}

export interface WindowIteration<E> {
  iter: number;
  events: E[];
}

export interface WindowStep<E> {
  /** Iterations with events, by iter descending. */
  iterations: WindowIteration<E>[];
  /** The task state with its positions moved (unchanged when nothing was returned). */
  state: WindowTaskState;
}

/**
 * One page for one task. `events` may be any superset of the candidates
 * within `windowBounds` (other metrics, variants or iterations are
 * filtered out here), but must hold every candidate of the iterations the
 * page takes.
 */
export function stepWindowTask<E extends WindowEvent>(
  state: WindowTaskState,
  events: Iterable<E>,
  request: { readonly kind: WindowKind; readonly iters: number; readonly navigateEarlier: boolean },
): WindowStep<E> {
  if (state.metrics.length === 0) return { iterations: [], state };
  const bounds = windowBounds(state, request.navigateEarlier);
  const { isCandidate, isShown } = windowFilters(state, request.kind);
  const candidates = [...events].filter((e) => isCandidate(e) && withinWindowBounds(e.iter, bounds));
  const chosen = new Set(
    pickWindowIterations(
      candidates.map((e) => e.iter),
      bounds,
      request.iters,
    ),
  );
  const prefer = request.kind === 'plots' ? isLater : hasGreaterUrl;

  const byIteration = new Map<number, Map<string, Map<string, E>>>();
  for (const e of candidates) {
    if (!chosen.has(e.iter)) continue;
    const metrics = getOrAdd(byIteration, e.iter, () => new Map<string, Map<string, E>>());
    const variants = getOrAdd(metrics, e.metric, () => new Map<string, E>());
    const current = variants.get(e.variant);
    if (current === undefined || prefer(e, current)) variants.set(e.variant, e);
  }

  const cap = variantsPerMetricCap(state.metrics.length, request.iters);
  const iterations: WindowIteration<E>[] = [];
  for (const [iter, metrics] of byIteration) {
    const shown: E[] = [];
    for (const metric of [...metrics.keys()].sort(compareCodePoints)) {
      const variants = metrics.get(metric)!;
      const names = [...variants.keys()].sort(compareCodePoints).slice(0, cap);
      for (const name of names) {
        const e = variants.get(name)!;
        if (isShown(e)) shown.push(e);
      }
    }
    if (shown.length > 0) iterations.push({ iter, events: shown });
  }
  iterations.sort((a, b) => b.iter - a.iter);
  if (iterations.length === 0) return { iterations, state };
  return {
    iterations,
    state: { ...state, last_max_iter: iterations[0]!.iter, last_min_iter: iterations[iterations.length - 1]!.iter },
  };
}

interface WindowFilters {
  /** Decides which iterations are taken. */
  isCandidate(e: WindowEvent): boolean;
  /** Applied after the iterations are taken (debug-image validity). */
  isShown(e: WindowEvent): boolean;
}

/**
 * Candidate and display rules of a task state. Debug images need a URL and
 * hide overwritten files; a variant unknown to the state is shown without
 * the check unless its metric's variants were named by the request.
 */
export function windowFilters(state: WindowTaskState, kind: WindowKind): WindowFilters {
  const metrics = new Map(state.metrics.map((m) => [m.metric, m]));
  const requested = new Map(
    state.metrics.map((m) => [m.metric, m.requested_variants && new Set(m.requested_variants)]),
  );
  const invalid = new Map(
    state.metrics.map((m) => [m.metric, new Map(m.variants.map((v) => [v.variant, v.last_invalid_iteration]))]),
  );
  const isCandidate = (e: WindowEvent): boolean => {
    if (!metrics.has(e.metric)) return false;
    const named = requested.get(e.metric);
    if (named && !named.has(e.variant)) return false;
    return kind === 'plots' || (e.url !== undefined && e.url !== null);
  };
  if (kind === 'plots') return { isCandidate, isShown: () => true };
  const isShown = (e: WindowEvent): boolean => {
    const known = invalid.get(e.metric);
    if (known?.has(e.variant)) return isImageShown(e.iter, known.get(e.variant));
    return !requested.get(e.metric);
  };
  return { isCandidate, isShown };
}

function isLater(a: WindowEvent, b: WindowEvent): boolean {
  return a.timestamp > b.timestamp;
}

function hasGreaterUrl(a: WindowEvent, b: WindowEvent): boolean {
  return compareCodePoints(a.url ?? '', b.url ?? '') > 0;
}

function getOrAdd<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
