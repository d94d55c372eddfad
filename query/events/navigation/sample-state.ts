/**
 * What the single-sample viewers (events.md §7.4, §7.5, §8.2, §8.3) share:
 * the state's identity checks and the "nothing found" answer.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { invalidScrollIdError } from '../common/scroll-cursor.js';

/** The part of a sample state that a get_*_sample call must match. */
export interface SampleStateKey {
  readonly task: string;
  readonly navigate_current_metric: boolean;
  readonly metric: string;
}

/**
 * get_plot_sample / get_debug_image_sample continuing a live state: the
 * task and mode must be the state's, and so must the metric when navigation
 * stays within it; otherwise 400/1104 with the "do not match" message.
 */
export function assertSampleStateMatches(state: SampleStateKey, request: SampleStateKey, scrollId: string): void {
  const matches =
    state.task === request.task &&
    state.navigate_current_metric === request.navigate_current_metric &&
    (!request.navigate_current_metric || state.metric === request.metric);
  if (!matches)
    throw apiError('invalid_scroll_id', 'Task and metric stored in the state do not match the passed ones', {
      scroll_id: scrollId,
    });
}

/**
 * next_plot_sample / next_debug_image_sample: the state must exist (live,
 * this company) and belong to the task; otherwise 400/1104 naming the id.
 */
export function requireNextSampleState<S extends { readonly task: string }>(
  state: S | undefined,
  task: string,
  scrollId: string | null | undefined,
): S {
  if (state === undefined || state.task !== task) throw invalidScrollIdError(scrollId);
  return state;
}

export interface IterationBounds {
  min_iteration: number | null;
  max_iteration: number | null;
}

export const NO_ITERATION_BOUNDS: IterationBounds = Object.freeze({ min_iteration: null, max_iteration: null });

export function boundsOf(
  range: { readonly min_iteration: number; readonly max_iteration: number } | undefined,
): IterationBounds {
  return range === undefined
    ? { ...NO_ITERATION_BOUNDS }
    : { min_iteration: range.min_iteration, max_iteration: range.max_iteration };
}
