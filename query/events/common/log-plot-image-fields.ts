/**
 * Request objects shared by the log, plot and debug-image reads
 * (events.md §0.5): `metric_variants` and `task_metric_variants` lists.
 */
import {
  bool,
  list,
  obj,
  requestSchema,
  str,
  strList,
  validationErrorFrom,
  type FieldBuilder,
} from '../../../shared/protocol/request-fields.js';
import type { MetricVariantsInput, TaskMetricVariantsInput } from './metric-variants.js';

/** A list of metric_variants (absent: no filter). */
export function metricVariantsList(): FieldBuilder<MetricVariantsInput[] | undefined> {
  const item = obj({ metric: str({ required: true }), variants: strList() }, { required: true });
  return list(item as FieldBuilder<MetricVariantsInput>);
}

/** A list of task_metric_variants with at least `minItems` entries. */
export function taskMetricVariantsList(
  options: { required?: boolean; minItems?: number } = {},
): FieldBuilder<TaskMetricVariantsInput[] | undefined> {
  const item = obj({ task: str({ required: true }), metric: str(), variants: strList() }, { required: true });
  return list(item as FieldBuilder<TaskMetricVariantsInput>, options);
}

/**
 * `tasks` with its alias `task` (events.md §13 #1), used when `tasks` is
 * absent: a string or a list of strings. Neither: `tasks` is required.
 */
export function tasksWithAlias(tasks: string[] | undefined, task: unknown): string[] {
  if (tasks !== undefined) return tasks;
  if (typeof task === 'string') return [task];
  const parsed = strList({ required: true, minItems: 1 })('tasks').safeParse(task);
  if (!parsed.success) throw validationErrorFrom(parsed.error);
  return parsed.data!;
}

/**
 * next_plot_sample / next_debug_image_sample. scroll_id is required by the
 * contract, but its absence is the 400/1104 of a missing state
 * (`scroll_id=None`), not a 400/12.
 */
export const nextSampleRequest = requestSchema({
  task: str({ required: true }),
  scroll_id: str(),
  navigate_earlier: bool({ default: true }),
  next_iteration: bool({ default: false }),
  model_events: bool({ default: false }),
});
