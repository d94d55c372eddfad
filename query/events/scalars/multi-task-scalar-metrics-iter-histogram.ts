/**
 * events.multi_task_scalar_metrics_iter_histogram (events.md §4.2).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import type { QueryDeps } from '../../query-deps.js';
import { withTasksList } from '../common/event-read-fields.js';
import { namespaceOf } from '../store/entity-access.js';
import { histogramFields, histogramOptionsOf } from './histogram-request.js';
import { ScalarHistograms } from './scalar-histograms.js';

export const MAX_HISTOGRAM_ENTITIES = 100;

export function multiTaskScalarMetricsIterHistogramOperation(deps: QueryDeps) {
  const histograms = new ScalarHistograms(deps);
  return defineOperation({
    name: 'events.multi_task_scalar_metrics_iter_histogram',
    minVersion: '1.0',
    request: withTasksList(histogramFields(), { maxItems: MAX_HISTOGRAM_ENTITIES }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const records = await deps.entities.requireReadable(context.identity.company, namespace, request.tasks);
      return {
        metrics: await histograms.histogramsByMetric(
          context.identity.company,
          namespace,
          records,
          histogramOptionsOf(request),
        ),
      };
    },
  });
}
