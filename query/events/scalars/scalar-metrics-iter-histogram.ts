/**
 * events.scalar_metrics_iter_histogram (events.md §4.1).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import { requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { namespaceOf } from '../store/entity-access.js';
import { histogramFields, histogramOptionsOf } from './histogram-request.js';
import { plainMap } from './plain-map.js';
import { ScalarHistograms, type SeriesBody } from './scalar-histograms.js';

export function scalarMetricsIterHistogramOperation(deps: QueryDeps) {
  const histograms = new ScalarHistograms(deps);
  return defineOperation({
    name: 'events.scalar_metrics_iter_histogram',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }), ...histogramFields() }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      await deps.entities.requireOne(context.identity.company, namespace, request.task);
      const series = await histograms.ofEntity(
        { company: context.identity.company, namespace, id: request.task },
        histogramOptionsOf(request),
      );
      // The metric map is the whole `data` (events.md §13 item 5).
      const metrics = plainMap<Record<string, SeriesBody & { name: string }>>();
      for (const s of series) (metrics[s.metric] ??= plainMap())[s.variant] = { name: s.variant, ...s.body };
      return metrics;
    },
  });
}
