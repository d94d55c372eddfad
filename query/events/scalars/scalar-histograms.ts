/**
 * The down-sampled scalar series of one or several entities (events.md
 * §4.1, §4.2; reports.get_task_data reuses `histogramsByMetric`, §0.7).
 * Which series exist comes from the metric listing; the points from
 * InfluxDB (by iteration) or from bulk reads bucketed here (by timestamp).
 */
import type { MetricFilter } from '../common/metric-variants.js';
import type { QueryDeps } from '../../query-deps.js';
import { epochMsToIso } from '../common/iso-time.js';
import type { ScalarKey } from '../common/event-read-fields.js';
import { mapLimited } from '../common/map-limited.js';
import { plainMap } from './plain-map.js';
import { iterHistogram, type HistogramSeries } from '../store/scalar-histogram-by-iter.js';
import { timestampHistogram } from '../store/scalar-histogram-by-timestamp.js';
import type { EntityRecord, Namespace } from '../store/entity-access.js';
import { InfluxCsvReader } from '../store/influx-csv.js';
import { seriesKey } from '../store/influx-rows.js';
import { metricFilterWhere, type EntityRef } from '../store/influx-where.js';
import { xAxisLabels } from '../store/x-axis-labels.js';

export interface HistogramOptions {
  samples: number;
  key: ScalarKey;
  filter: MetricFilter;
  /** The min/max extension: per bucket minimum and maximum (docs/events-read.md). */
  minMax: boolean;
}

/** One series as the histograms return it (without its `name`, which differs between §4.1 and §4.2). */
export interface SeriesBody {
  x: Array<number | string>;
  y: number[];
  min?: number[];
  max?: number[];
  x_axis_label?: string;
}

export interface EntitySeries {
  metric: string;
  variant: string;
  body: SeriesBody;
}

/** Entities computed at once by the multi-entity histogram; each runs a few queries of its own. */
const ENTITY_CONCURRENCY = 4;

export class ScalarHistograms {
  private readonly csv: InfluxCsvReader;

  constructor(private readonly deps: QueryDeps) {
    this.csv = new InfluxCsvReader(deps.config, deps.storeCalls);
  }

  /** Every series of one entity's histogram. */
  async ofEntity(ref: EntityRef, options: HistogramOptions): Promise<EntitySeries[]> {
    const listing = await this.deps.listings.one(ref.company, ref.namespace, ref.id);
    // Only series with an iteration above -2^31 take part, for every key (§4.1).
    const series = listing.filter(
      (e) => e.type === 'training_stats_scalar' && e.regular && options.filter.matches(e.metric, e.variant),
    );
    if (series.length === 0) return [];
    const points =
      options.key === 'iter'
        ? await iterHistogram(
            this.deps.influx,
            ref,
            series,
            metricFilterWhere(options.filter),
            options.samples,
            options.minMax,
          )
        : await timestampHistogram(this.csv, ref, series, options.samples, options.minMax);
    const labels = await xAxisLabels(this.deps.redis, this.deps.keyPrefix, ref.company, ref.namespace, ref.id, points);
    return points.map((p) => ({
      metric: p.metric,
      variant: p.variant,
      body: seriesBody(p, options.key, labels.get(seriesKey(p))),
    }));
  }

  /** §4.2's `metrics` map: metric -> variant -> entity id -> series named after the entity. */
  async histogramsByMetric(
    company: string,
    namespace: Namespace,
    records: readonly EntityRecord[],
    options: HistogramOptions,
  ) {
    const unique = [...new Map(records.map((r) => [r.id, r])).values()];
    const perEntity = await mapLimited(unique, ENTITY_CONCURRENCY, (record) =>
      this.ofEntity({ company, namespace, id: record.id }, options),
    );
    const metrics = plainMap<Record<string, Record<string, SeriesBody & { name: string }>>>();
    perEntity.forEach((series, i) => {
      const record = unique[i]!;
      for (const s of series) {
        const variants = (metrics[s.metric] ??= plainMap());
        const entities = (variants[s.variant] ??= plainMap());
        entities[record.id] = { name: record.name, ...s.body };
      }
    });
    return metrics;
  }
}

function seriesBody(points: HistogramSeries, key: ScalarKey, label: string | undefined): SeriesBody {
  const body: SeriesBody = { x: key === 'iso_time' ? points.x.map(epochMsToIso) : points.x, y: points.y };
  if (points.min) body.min = points.min;
  if (points.max) body.max = points.max;
  if (label !== undefined) body.x_axis_label = label;
  return body;
}
