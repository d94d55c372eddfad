/**
 * events.scalar_metrics_iter_histogram and
 * events.multi_task_scalar_metrics_iter_histogram (events.md §4.1, §4.2).
 * `min_max: true` (an extension, off by default) adds `min` and `max`
 * arrays per series so spikes survive down-sampling; without it the answer
 * is exactly ClearML's.
 */
import { metricFilter } from '../../shared/events/domain/metric-variants.js';
import { defineOperation } from '../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../query-deps.js';
import { metricsFilterField, scalarKeyField, withTasksList } from './common/event-read-fields.js';
import { plainMap } from './plain-map.js';
import { ScalarHistograms, type HistogramOptions, type SeriesBody } from './scalar-histograms.js';
import { namespaceOf } from './store/entity-access.js';

/** The fields both histograms share. */
const histogramFields = () => ({
  samples: int({ min: 0, max: 6000, default: 2000 }),
  key: scalarKeyField(),
  metrics: metricsFilterField(),
  model_events: bool({ default: false }),
  min_max: bool({ default: false }),
});

export const MAX_HISTOGRAM_ENTITIES = 100;

export function scalarHistogramOperations(deps: QueryDeps) {
  const histograms = new ScalarHistograms(deps);
  const optionsOf = (request: { samples: number; key: HistogramOptions['key']; metrics?: Parameters<typeof metricFilter>[0]; min_max: boolean }): HistogramOptions => ({
    samples: request.samples,
    key: request.key,
    filter: metricFilter(request.metrics),
    minMax: request.min_max,
  });

  const single = defineOperation({
    name: 'events.scalar_metrics_iter_histogram',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }), ...histogramFields() }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      await deps.entities.requireOne(context.identity.company, namespace, request.task);
      const series = await histograms.ofEntity({ company: context.identity.company, namespace, id: request.task }, optionsOf(request));
      // The metric map is the whole `data` (events.md §13 item 5).
      const metrics = plainMap<Record<string, SeriesBody & { name: string }>>();
      for (const s of series) (metrics[s.metric] ??= plainMap())[s.variant] = { name: s.variant, ...s.body };
      return metrics;
    },
  });

  const multi = defineOperation({
    name: 'events.multi_task_scalar_metrics_iter_histogram',
    minVersion: '1.0',
    request: withTasksList(histogramFields(), { maxItems: MAX_HISTOGRAM_ENTITIES }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const records = await deps.entities.requireReadable(context.identity.company, namespace, request.tasks);
      return { metrics: await histograms.histogramsByMetric(context.identity.company, namespace, records, optionsOf(request)) };
    },
  });

  return [single, multi];
}
