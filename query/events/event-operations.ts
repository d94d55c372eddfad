/**
 * Every events.* operation the query target serves, for its composition
 * root (query/query-target.ts), grouped by capability folder: the reads
 * (events.md §3 to §8), declared read-only, then the operations that change
 * stored events through the writers (§6 clear_task_log, §9 deletions and
 * clear_scroll).
 */
import { deletionOperations, readOnlyOperations, type Operation } from '../../shared/protocol/operation.js';
import type { QueryDeps } from '../query-deps.js';
import { debugImagesOperation } from './debug-images/debug-images.js';
import { getDebugImageSampleOperation } from './debug-images/get-debug-image-sample.js';
import { nextDebugImageSampleOperation } from './debug-images/next-debug-image-sample.js';
import { clearScrollOperation } from './deletion/clear-scroll.js';
import { deleteForModelOperation } from './deletion/delete-for-model.js';
import { deleteForTaskOperation } from './deletion/delete-for-task.js';
import { clearTaskLogOperation } from './logs/clear-task-log.js';
import { downloadTaskLogOperation } from './logs/download-task-log.js';
import { getTaskLogOperation } from './logs/get-task-log.js';
import { getMultiTaskMetricsOperation } from './metrics/get-multi-task-metrics.js';
import { getScalarMetricsAndVariantsOperation } from './metrics/get-scalar-metrics-and-variants.js';
import { getTaskMetricsOperation } from './metrics/get-task-metrics.js';
import { getVectorMetricsAndVariantsOperation } from './metrics/get-vector-metrics-and-variants.js';
import { getMultiTaskPlotsOperation } from './plots/get-multi-task-plots.js';
import { getPlotSampleOperation } from './plots/get-plot-sample.js';
import { getTaskPlotsOperation } from './plots/get-task-plots.js';
import { nextPlotSampleOperation } from './plots/next-plot-sample.js';
import { plotsOperation } from './plots/plots.js';
import { getScalarMetricDataOperation } from './scalars/get-scalar-metric-data.js';
import { getTaskLatestScalarValuesOperation } from './scalars/get-task-latest-scalar-values.js';
import { getTaskSingleValueMetricsOperation } from './scalars/get-task-single-value-metrics.js';
import { multiTaskScalarMetricsIterHistogramOperation } from './scalars/multi-task-scalar-metrics-iter-histogram.js';
import { scalarMetricsIterHistogramOperation } from './scalars/scalar-metrics-iter-histogram.js';
import { scalarMetricsIterRawOperation } from './scalars/scalar-metrics-iter-raw.js';
import { vectorMetricsIterHistogramOperation } from './scalars/vector-metrics-iter-histogram.js';
import { getTaskEventsOperation } from './task-events/get-task-events.js';

export function eventOperations(deps: QueryDeps): Operation[] {
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
      getTaskLogOperation(deps),
      downloadTaskLogOperation(deps),
      getTaskPlotsOperation(deps),
      getMultiTaskPlotsOperation(deps),
      plotsOperation(deps),
      getPlotSampleOperation(deps),
      nextPlotSampleOperation(deps),
      debugImagesOperation(deps),
      getDebugImageSampleOperation(deps),
      nextDebugImageSampleOperation(deps),
    ),
    ...deletionOperations(clearTaskLogOperation(deps), deleteForTaskOperation(deps), deleteForModelOperation(deps)),
    clearScrollOperation(deps),
  ];
}
