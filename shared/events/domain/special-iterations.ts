/** Iteration values and metrics with a meaning of their own (events.md §1.6). */

/** The iteration of a single-value scalar (`Logger.report_single_value`): -(2^31). */
export const SINGLE_VALUE_ITER = -2147483648;

/** Metrics whose `iter` does not move the entity's `last_iteration` (configuration `ignore_iteration.metrics`). */
export const DEFAULT_IGNORED_ITERATION_METRICS: readonly string[] = Object.freeze([':monitor:machine', ':monitor:gpu']);

/**
 * Whether an event takes part in the scalar histograms and in
 * get_task_metrics: it needs an iteration, and single values are left out.
 */
export function countsForHistogram(iter: number | null | undefined): iter is number {
  return typeof iter === 'number' && iter > SINGLE_VALUE_ITER;
}
