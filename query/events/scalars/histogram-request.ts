/**
 * The request fields events.scalar_metrics_iter_histogram and
 * events.multi_task_scalar_metrics_iter_histogram share (events.md §4.1,
 * §4.2). `min_max: true` (an extension, off by default) adds `min` and
 * `max` arrays per series so spikes survive down-sampling; without it the
 * answer is exactly ClearML's.
 */
import { metricFilter } from '../common/metric-variants.js';
import { bool, int } from '../../../shared/protocol/request-fields.js';
import { metricsFilterField, scalarKeyField } from '../common/event-read-fields.js';
import type { HistogramOptions } from './scalar-histograms.js';

/** `samples`: points per series, 0 = all (events.md §4.1); reports.get_task_data takes the same field. */
export const histogramSamplesField = () => int({ min: 0, max: 6000, default: 2000 });

/** The fields both histograms share. */
export const histogramFields = () => ({
  samples: histogramSamplesField(),
  key: scalarKeyField(),
  metrics: metricsFilterField(),
  model_events: bool({ default: false }),
  min_max: bool({ default: false }),
});

export const histogramOptionsOf = (request: {
  samples: number;
  key: HistogramOptions['key'];
  metrics?: Parameters<typeof metricFilter>[0];
  min_max: boolean;
}): HistogramOptions => ({
  samples: request.samples,
  key: request.key,
  filter: metricFilter(request.metrics),
  minMax: request.min_max,
});
