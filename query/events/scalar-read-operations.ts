/**
 * The scalar-side event reads and the deletions, for the query target's
 * composition root: metric listings (events.md §3), scalars and vectors
 * (§4), get_task_events (§5), deletions and clear_scroll (§9).
 */
import { readOnlyOperations, type Operation } from '../../shared/protocol/operation.js';
import type { QueryDeps } from '../query-deps.js';
import { clearScrollOperation } from './deletion/clear-scroll.js';
import { deleteForModelOperation } from './deletion/delete-for-model.js';
import { deleteForTaskOperation } from './deletion/delete-for-task.js';
import { getTaskLatestScalarValuesOperation } from './scalars/get-task-latest-scalar-values.js';
import { getMultiTaskMetricsOperation } from './metrics/get-multi-task-metrics.js';
import { getScalarMetricsAndVariantsOperation } from './metrics/get-scalar-metrics-and-variants.js';
import { getTaskMetricsOperation } from './metrics/get-task-metrics.js';
import { getVectorMetricsAndVariantsOperation } from './metrics/get-vector-metrics-and-variants.js';
import { multiTaskScalarMetricsIterHistogramOperation } from './scalars/multi-task-scalar-metrics-iter-histogram.js';
import { scalarMetricsIterHistogramOperation } from './scalars/scalar-metrics-iter-histogram.js';
import { getScalarMetricDataOperation } from './scalars/get-scalar-metric-data.js';
import { scalarMetricsIterRawOperation } from './scalars/scalar-metrics-iter-raw.js';
import { getTaskSingleValueMetricsOperation } from './scalars/get-task-single-value-metrics.js';
import { getTaskEventsOperation } from './task-events/get-task-events.js';
import { vectorMetricsIterHistogramOperation } from './scalars/vector-metrics-iter-histogram.js';

export function scalarReadOperations(deps: QueryDeps): Operation[] {
  return [
    ...readOnlyOperations(
      getTaskMetricsOperation(deps),
      getMultiTaskMetricsOperation(deps),
      getScalarMetricsAndVariantsOperation(deps),
      getVectorMetricsAndVariantsOperation(deps),
      scalarMetricsIterHistogramOperation(deps),
      multiTaskScalarMetricsIterHistogramOperation(deps),
      scalarMetricsIterRawOperation(deps),
      getScalarMetricDataOperation(deps),
      getTaskLatestScalarValuesOperation(deps),
      getTaskSingleValueMetricsOperation(deps),
      vectorMetricsIterHistogramOperation(deps),
      getTaskEventsOperation(deps),
    ),
    deleteForTaskOperation(deps),
    deleteForModelOperation(deps),
    clearScrollOperation(deps),
  ];
}
