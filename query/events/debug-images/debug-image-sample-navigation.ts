/**
 * The debug-image viewer (events.md §8.2 get_debug_image_sample, §8.3
 * next_debug_image_sample) as pure steps over a JSON-serialisable state.
 * Ranges hide images whose file was overwritten (older than the variant's
 * min_iteration, see debug-image-validity).
 */
import { compareCodePoints } from '../common/code-point-order.js';
import { variantIterationRange } from './debug-image-validity.js';
import { boundsOf, NO_ITERATION_BOUNDS, type IterationBounds } from '../navigation/sample-state.js';

export interface VariantRange {
  readonly metric: string;
  readonly variant: string;
  readonly min_iteration: number;
  readonly max_iteration: number;
}

export interface DebugImageSampleState {
  readonly task: string;
  readonly navigate_current_metric: boolean;
  /** The current metric and variant (the requested ones until an image is found). */
  readonly metric: string;
  readonly variant: string;
  /** The current iteration; null until an image is found. */
  readonly iteration: number | null;
  /** Ascending by (metric, variant): the requested metric's variants when navigate_current_metric, else all. */
  readonly ranges: readonly VariantRange[];
}

/** An image event as navigation sees it; events without `url` are never shown. */
export interface ImageEvent {
  readonly iter: number;
  readonly metric: string;
  readonly variant: string;
  readonly url?: string | null;
}

type Located = ImageEvent & { readonly url: string };

const hasUrl = <E extends ImageEvent>(e: E): e is E & { readonly url: string } => e.url !== undefined && e.url !== null;

function compareNames(a: { metric: string; variant: string }, b: { metric: string; variant: string }): number {
  return compareCodePoints(a.metric, b.metric) || compareCodePoints(a.variant, b.variant);
}

/** §8.2 ranges of every (metric, variant) present in `events`, ascending by (metric, variant). */
export function debugImageVariantRanges(events: Iterable<ImageEvent>): VariantRange[] {
  const byVariant = new Map<string, Map<string, Located[]>>();
  for (const e of events) {
    if (!hasUrl(e)) continue;
    const variants = byVariant.get(e.metric) ?? new Map<string, Located[]>();
    byVariant.set(e.metric, variants);
    const list = variants.get(e.variant) ?? [];
    variants.set(e.variant, list);
    list.push(e);
  }
  const ranges: VariantRange[] = [];
  for (const [metric, variants] of byVariant) {
    for (const [variant, list] of variants) ranges.push({ metric, variant, ...variantIterationRange(list)! });
  }
  return ranges.sort(compareNames);
}

/** A new state: `events` are the task's image events (the requested metric's suffice when navigate_current_metric). */
export function newDebugImageSampleState(
  request: {
    readonly task: string;
    readonly metric: string;
    readonly variant: string;
    readonly navigate_current_metric: boolean;
  },
  events: Iterable<ImageEvent>,
): DebugImageSampleState {
  const ranges = debugImageVariantRanges(events).filter(
    (r) => !request.navigate_current_metric || r.metric === request.metric,
  );
  return { ...request, iteration: null, ranges };
}

/** `refresh` on a live state: the ranges are recomputed, metric, variant and iteration kept. */
export function refreshDebugImageSampleRanges(
  state: DebugImageSampleState,
  events: Iterable<ImageEvent>,
): DebugImageSampleState {
  return { ...state, ranges: newDebugImageSampleState(state, events).ranges };
}

export interface DebugImageSampleAnswer<E> extends IterationBounds {
  /** The state to save (unchanged when nothing was found). */
  state: DebugImageSampleState;
  /** False when nothing was found: next_debug_image_sample then must not save the state. */
  moved: boolean;
  event: E | null;
}

/**
 * get_debug_image_sample after the state is obtained: among the variant's
 * images at or above its min_iteration (and at or below `iteration` when
 * given), the greatest iteration, then the greatest URL.
 */
export function debugImageSample<E extends ImageEvent>(
  state: DebugImageSampleState,
  target: { readonly metric: string; readonly variant: string },
  events: Iterable<E>,
  iteration?: number | null,
): DebugImageSampleAnswer<E> {
  const range = state.ranges.find((r) => r.metric === target.metric && r.variant === target.variant);
  if (range === undefined) return { state, moved: false, event: null, ...NO_ITERATION_BOUNDS };
  let best: (E & { url: string }) | undefined;
  for (const e of events) {
    if (!hasUrl(e) || e.metric !== target.metric || e.variant !== target.variant || e.iter < range.min_iteration)
      continue;
    if (iteration !== undefined && iteration !== null && e.iter > iteration) continue;
    if (best === undefined || e.iter > best.iter || (e.iter === best.iter && compareCodePoints(e.url, best.url) > 0))
      best = e;
  }
  if (best === undefined) return { state, moved: false, event: null, ...boundsOf(range) };
  return { state: moveTo(state, best), moved: true, event: best, ...boundsOf(range) };
}

/**
 * next_debug_image_sample: first the other variants at the current
 * iteration (unless next_iteration), then the nearest other iteration. A
 * state without a current iteration goes straight to the nearest iteration
 * with no bound. `events` may be any superset of the pool's image events.
 */
export function nextDebugImageSample<E extends ImageEvent>(
  state: DebugImageSampleState,
  events: Iterable<E>,
  navigateEarlier: boolean,
  nextIteration: boolean,
): DebugImageSampleAnswer<E> {
  const pool = new Map<string, Map<string, VariantRange>>();
  for (const r of state.ranges) {
    if (state.navigate_current_metric && r.metric !== state.metric) continue;
    const variants = pool.get(r.metric) ?? new Map<string, VariantRange>();
    pool.set(r.metric, variants);
    variants.set(r.variant, r);
  }
  const eligible: Array<{ event: E & { url: string }; range: VariantRange }> = [];
  for (const e of events) {
    const range = pool.get(e.metric)?.get(e.variant);
    if (range !== undefined && hasUrl(e) && e.iter >= range.min_iteration) eligible.push({ event: e, range });
  }
  const current = state.iteration;
  const way = navigateEarlier ? -1 : 1;
  let found: (E & { url: string }) | undefined;
  if (!nextIteration && current !== null) {
    // Same iteration, the variants on the navigation side of the current one.
    found = best(
      eligible.filter(
        ({ event, range }) =>
          event.iter === current && range.min_iteration <= current && Math.sign(compareNames(range, state)) === way,
      ),
      (a, b) => -way * compareNames(a, b) || compareCodePoints(a.url, b.url),
    );
  }
  if (found === undefined) {
    const further = eligible.filter(
      ({ event, range }) =>
        current === null ||
        (Math.sign(event.iter - current) === way && (!navigateEarlier || range.min_iteration < current)),
    );
    found = best(further, (a, b) => -way * (a.iter - b.iter || compareNames(a, b)) || compareCodePoints(a.url, b.url));
  }
  if (found === undefined) return { state, moved: false, event: null, ...NO_ITERATION_BOUNDS };
  return {
    state: moveTo(state, found),
    moved: true,
    event: found,
    ...boundsOf(pool.get(found.metric)?.get(found.variant)),
  };
}

/** The greatest item by `compare` (positive: first argument preferred). */
function best<E extends Located>(items: ReadonlyArray<{ event: E }>, compare: (a: E, b: E) => number): E | undefined {
  let winner: E | undefined;
  for (const { event } of items) if (winner === undefined || compare(event, winner) > 0) winner = event;
  return winner;
}

function moveTo(state: DebugImageSampleState, e: ImageEvent): DebugImageSampleState {
  return { ...state, metric: e.metric, variant: e.variant, iteration: e.iter };
}
