/**
 * The four event sections of reports.get_task_data (reports.md §3.10, §5):
 * their request members and validation, and the calls into the events read
 * code that computes each (events.md §0.7). Nothing here re-implements an
 * events algorithm.
 */
import {
  bool,
  int,
  obj,
  parseRequest,
  requestSchema,
  type FieldBuilder,
} from '../../shared/protocol/request-fields.js';
import type { MetricVariantsInput } from '../events/common/metric-variants.js';
import type { QueryDeps } from '../query-deps.js';
import { debugImagesSection } from '../events/debug-images/debug-images-section.js';
import { scalarKeyField } from '../events/common/event-read-fields.js';
import { histogramSamplesField } from '../events/scalars/histogram-request.js';
import { plotsSection } from '../events/plots/plots-section.js';
import { metricVariantsList } from '../events/common/log-plot-image-fields.js';
import { ScalarHistograms } from '../events/scalars/scalar-histograms.js';
import { singleValuesOf } from '../events/scalars/get-task-single-value-metrics.js';
import { metricFilter } from '../events/common/metric-variants.js';
import type { EntityRecord, Namespace } from '../events/store/entity-access.js';
import type { StoredRecord } from './query-language/types.js';

const metrics = metricVariantsList;
const emptyObject: FieldBuilder<Record<string, never> | undefined> = obj({});

const sectionsSchema = requestSchema({
  model_events: bool({ default: false }),
  debug_images: obj({ iters: int({ min: 1, default: 1 }), metrics: metrics() }),
  plots: obj({
    iters: int({ min: 1, default: 1 }),
    metrics: metrics(),
    last_iters_per_task_metric: bool({ default: true }),
  }),
  scalar_metrics_iter_histogram: obj({
    samples: histogramSamplesField(),
    key: scalarKeyField(),
    metrics: metrics(),
  }),
  single_value_metrics: emptyObject,
});

export type SectionsRequest = ReturnType<typeof parseSections>;

/** Validates the section members (400/12); absent or null members request nothing. */
export function parseSections(body: Record<string, unknown>) {
  return parseRequest(sectionsSchema, body);
}

/** The record fields the events reads use, from a stored task or model record. */
function entityRecord(record: StoredRecord): EntityRecord {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    id: record.id as string,
    company: text(record.company) ?? '',
    name: text(record.name) ?? (record.id as string),
    status: text(record.status),
    type: text(record.type),
    ready: record.ready === true ? '1' : record.ready === false ? '0' : undefined,
  };
}

const selection = (list: MetricVariantsInput[] | undefined) => (list && list.length > 0 ? list : undefined);

const histograms = new WeakMap<QueryDeps, ScalarHistograms>();
const histogramsOf = (deps: QueryDeps) => {
  let h = histograms.get(deps);
  if (h === undefined) histograms.set(deps, (h = new ScalarHistograms(deps)));
  return h;
};

/** The requested sections, each computed by the events read code for the response's records, in order. */
export async function computeSections(
  deps: QueryDeps,
  company: string,
  sections: SectionsRequest,
  records: readonly StoredRecord[],
): Promise<Record<string, unknown>> {
  const namespace: Namespace = sections.model_events ? 'm' : 't';
  const entities = records.map(entityRecord);
  // Public records have no events (events.md §0.7); the scalar reads take only the caller's.
  const own = entities.filter((e) => e.company === company);
  const out: Record<string, unknown> = {};
  const jobs: Promise<void>[] = [];
  if (sections.debug_images) {
    const s = sections.debug_images;
    jobs.push(
      debugImagesSection(deps, company, namespace, entities, { iters: s.iters, metrics: selection(s.metrics) }).then(
        (v) => {
          out.debug_images = v;
        },
      ),
    );
  }
  if (sections.plots) {
    const s = sections.plots;
    const options = {
      iters: s.iters,
      metrics: selection(s.metrics),
      lastItersPerTaskMetric: s.last_iters_per_task_metric,
    };
    jobs.push(
      plotsSection(deps, company, namespace, entities, options).then((v) => {
        out.plots = v;
      }),
    );
  }
  if (sections.scalar_metrics_iter_histogram) {
    const s = sections.scalar_metrics_iter_histogram;
    const options = { samples: s.samples, key: s.key!, filter: metricFilter(selection(s.metrics)), minMax: false };
    jobs.push(
      histogramsOf(deps)
        .histogramsByMetric(company, namespace, own, options)
        .then((v) => {
          out.scalar_metrics_iter_histogram = v;
        }),
    );
  }
  if (sections.single_value_metrics) {
    jobs.push(
      singleValuesOf(deps, company, namespace, own, metricFilter(undefined)).then((v) => {
        out.single_value_metrics = v;
      }),
    );
  }
  await Promise.all(jobs);
  // Fixed member order, whatever finished first.
  const ordered: Record<string, unknown> = {};
  for (const key of ['debug_images', 'plots', 'scalar_metrics_iter_histogram', 'single_value_metrics']) {
    if (key in out) ordered[key] = out[key];
  }
  return ordered;
}
