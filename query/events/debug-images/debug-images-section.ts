/**
 * The `debug_images` section of reports.get_task_data (events.md §0.7,
 * reports.md §5): for each record, the first page of a fresh
 * events.debug_images state (nothing is stored, no scroll id). Records of
 * other companies, public ones included, have no events: an entry with no
 * iterations.
 */
import { metricFilter, type MetricVariantsInput } from '../common/metric-variants.js';
import type { QueryDeps } from '../../query-deps.js';
import { firstWindowPage, freshPageIndex } from '../store/window-pages.js';
import type { EntityRecord, Namespace } from '../store/entity-access.js';
import type { StoredEvent } from '../store/stored-events.js';

export interface DebugImagesSectionOptions {
  /** Default 1. */
  readonly iters?: number;
  /** Absent or empty: every metric. */
  readonly metrics?: readonly MetricVariantsInput[] | null;
}

export interface DebugImagesSectionEntry {
  task: string;
  iterations: Array<{ iter: number; events: StoredEvent[] }>;
}

export async function debugImagesSection(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  records: readonly EntityRecord[],
  options: DebugImagesSectionOptions,
): Promise<DebugImagesSectionEntry[]> {
  const filter = metricFilter(options.metrics);
  return Promise.all(
    records.map(async (record) => {
      if (record.company !== company) return { task: record.id, iterations: [] };
      const selection = { task: record.id, metrics: filter };
      const iters = options.iters ?? 1;
      const indexed = await freshPageIndex(deps, company, namespace, 'debug_images', selection, iters);
      const page = await firstWindowPage(
        deps,
        company,
        namespace,
        'debug_images',
        selection,
        { iters, navigateEarlier: true },
        indexed,
      );
      return { task: record.id, iterations: page.iterations };
    }),
  );
}
