/**
 * The shared request objects `metric_variants` and `task_metric_variants`
 * (events.md §0.5), normalised once so that every read filters alike.
 */

export interface MetricVariantsInput {
  readonly metric: string;
  readonly variants?: readonly string[] | null;
}

export interface MetricSelection {
  readonly metric: string;
  /** The variants named for the metric, without duplicates; undefined: all variants. */
  readonly variants: readonly string[] | undefined;
}

export interface MetricFilter {
  /** True when nothing was selected, which means "no filter": every metric/variant matches. */
  readonly isEmpty: boolean;
  /** The selected metrics, in order of first appearance, each with its (last) variant list. */
  readonly metrics: readonly MetricSelection[];
  matches(metric: string, variant: string): boolean;
  /** Whether any event of this metric can match. */
  hasMetric(metric: string): boolean;
  /** True when some selected metric names specific variants. */
  readonly namesVariants: boolean;
}

/** A filter that lets everything through. */
export const NO_METRIC_FILTER: MetricFilter = metricFilterOf(new Map());

/**
 * The union of the entries; a metric given twice keeps its later entry;
 * absent or empty variants select every variant of the metric.
 */
export function metricFilter(entries: readonly MetricVariantsInput[] | null | undefined): MetricFilter {
  if (!entries || entries.length === 0) return NO_METRIC_FILTER;
  const byMetric = new Map<string, ReadonlySet<string> | undefined>();
  for (const entry of entries) byMetric.set(entry.metric, variantSet(entry.variants));
  return metricFilterOf(byMetric);
}

function variantSet(variants: readonly string[] | null | undefined): ReadonlySet<string> | undefined {
  return variants && variants.length > 0 ? new Set(variants) : undefined;
}

function metricFilterOf(byMetric: ReadonlyMap<string, ReadonlySet<string> | undefined>): MetricFilter {
  const metrics: MetricSelection[] = [...byMetric].map(([metric, variants]) => ({
    metric,
    variants: variants === undefined ? undefined : [...variants],
  }));
  const isEmpty = byMetric.size === 0;
  return {
    isEmpty,
    metrics,
    namesVariants: metrics.some((m) => m.variants !== undefined),
    hasMetric: (metric) => isEmpty || byMetric.has(metric),
    matches(metric, variant) {
      if (isEmpty) return true;
      if (!byMetric.has(metric)) return false;
      const variants = byMetric.get(metric);
      return variants === undefined || variants.has(variant);
    },
  };
}

export interface TaskMetricVariantsInput {
  readonly task: string;
  readonly metric?: string | null;
  readonly variants?: readonly string[] | null;
}

export interface TaskMetricSelection {
  readonly task: string;
  /** Empty (isEmpty) when every metric of the task is selected. */
  readonly metrics: MetricFilter;
}

/**
 * Groups `task_metric_variants` by task in order of first appearance. An
 * entry without `metric` selects every metric of its task (its variants are
 * then meaningless and ignored); otherwise the rules of `metricFilter` apply.
 */
export function taskMetricSelections(entries: readonly TaskMetricVariantsInput[]): TaskMetricSelection[] {
  const perTask = new Map<string, MetricVariantsInput[] | 'all'>();
  for (const entry of entries) {
    const sofar = perTask.get(entry.task);
    if (sofar === 'all') continue;
    if (entry.metric === undefined || entry.metric === null) perTask.set(entry.task, 'all');
    else if (sofar) sofar.push({ metric: entry.metric, variants: entry.variants });
    else perTask.set(entry.task, [{ metric: entry.metric, variants: entry.variants }]);
  }
  return [...perTask].map(([task, metrics]) => ({
    task,
    metrics: metrics === 'all' ? NO_METRIC_FILTER : metricFilter(metrics),
  }));
}
