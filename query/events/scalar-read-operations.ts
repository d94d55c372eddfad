/**
 * The scalar-side event reads and the deletions, for the query target's
 * composition root: metric listings (events.md §3), scalars and vectors
 * (§4), get_task_events (§5), deletions and clear_scroll (§9).
 */
import { readOnlyOperations, type Operation } from '../../shared/protocol/operation.js';
import type { QueryDeps } from '../query-deps.js';
import { deleteOperations } from './delete-operations.js';
import { latestScalarValuesOperation } from './latest-scalar-values-operation.js';
import { getMultiTaskMetricsOperation } from './metrics/get-multi-task-metrics.js';
import { getScalarMetricsAndVariantsOperation } from './metrics/get-scalar-metrics-and-variants.js';
import { getTaskMetricsOperation } from './metrics/get-task-metrics.js';
import { getVectorMetricsAndVariantsOperation } from './metrics/get-vector-metrics-and-variants.js';
import { scalarHistogramOperations } from './scalar-histogram-operations.js';
import { scalarMetricDataOperation } from './scalar-metric-data-operation.js';
import { scalarRawOperation } from './scalar-raw-operation.js';
import { singleValuesOperation } from './single-values-operation.js';
import { taskEventsOperation } from './task-events-operation.js';
import { vectorHistogramOperation } from './vector-histogram-operation.js';

export function scalarReadOperations(deps: QueryDeps): Operation[] {
  return [
    ...readOnlyOperations(
      getTaskMetricsOperation(deps),
      getMultiTaskMetricsOperation(deps),
      getScalarMetricsAndVariantsOperation(deps),
      getVectorMetricsAndVariantsOperation(deps),
      ...scalarHistogramOperations(deps),
      scalarRawOperation(deps),
      scalarMetricDataOperation(deps),
      latestScalarValuesOperation(deps),
      singleValuesOperation(deps),
      vectorHistogramOperation(deps),
      taskEventsOperation(deps),
    ),
    ...deleteOperations(deps),
  ];
}
