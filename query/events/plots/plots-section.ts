/**
 * The `plots` section of reports.get_task_data (events.md §0.7, reports.md
 * §5): the `plots` map of the first page of get_multi_task_plots for the
 * response's records, without a cursor. Public records (and any record of
 * another company) have no events and contribute nothing.
 */
import type { MetricVariantsInput } from '../common/metric-variants.js';
import type { MultiTaskPlotsMap } from './multi-task-plots-page.js';
import type { QueryDeps } from '../../query-deps.js';
import { multiTaskPlots } from './get-multi-task-plots.js';
import type { EntityRecord, Namespace } from '../store/entity-access.js';
import type { StoredEvent } from '../store/stored-events.js';

export interface PlotsSectionOptions {
  /** Default 1. */
  readonly iters?: number;
  /** Absent or empty: every metric. */
  readonly metrics?: readonly MetricVariantsInput[] | null;
  /** Default true. */
  readonly lastItersPerTaskMetric?: boolean;
}

export async function plotsSection(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  records: readonly EntityRecord[],
  options: PlotsSectionOptions,
): Promise<MultiTaskPlotsMap<StoredEvent>> {
  const own = records.filter((r) => r.company === company);
  const names = new Map(own.map((r) => [r.id, r.name]));
  const page = await multiTaskPlots(
    deps,
    company,
    {
      entities: own.map((r) => r.id),
      namespace,
      iters: options.iters ?? 1,
      metrics: options.metrics ?? null,
      lastItersPerTaskMetric: options.lastItersPerTaskMetric ?? true,
    },
    names,
    null,
  );
  return page.plots;
}
