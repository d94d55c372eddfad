/**
 * What bench:query measures (query-bench.ts): the reads timed against their
 * store work and delivery, and the page-bounded reads of the scaling table.
 */
import type { SeedPlan } from './query-bench-seed.js';

export interface BenchCase {
  /** Shown as op=...; the operation name plus what distinguishes the case. */
  label: string;
  operation: string;
  body: (context: CaseContext) => unknown;
  /** Calls to time (BENCH_CALLS by default): more for sub-millisecond reads, fewer for huge answers. */
  calls?: number;
  /** Seconds the case may take when longer than BENCH_CASE_SECONDS (reads of a second or more). */
  seconds?: number;
  /** A control case: its operation replays the store work recorded for the case of this label (CONTROL_CASES). */
  replaysStoreWorkOf?: string;
}

export interface CaseContext {
  task: string;
  /** A get_task_events cursor positioned after the first page (scalars, batch 1000). */
  scrollId: string;
  /** A task of BENCH_WIDE_VARIANTS scalar series (100 metrics) of one point each. */
  wideTask: string;
}

/** Page-bounded scalar reads measured both against their store work and for scaling. */
const METRIC_DATA = {
  label: 'events.get_scalar_metric_data',
  operation: 'events.get_scalar_metric_data',
  body: ({ task }: { task: string }) => ({ task, metric: 'loss' }),
};
const LATEST_VALUES = {
  label: 'events.get_task_latest_scalar_values',
  operation: 'events.get_task_latest_scalar_values',
  body: ({ task }: { task: string }) => ({ task }),
};

/** The scalar-side reads (query/events/scalars, metrics and task-events). */
export const SCALAR_CASES: BenchCase[] = [
  {
    label: 'events.get_task_metrics',
    operation: 'events.get_task_metrics',
    body: ({ task }) => ({ tasks: [task] }),
    calls: 300,
  },
  {
    label: 'events.get_multi_task_metrics',
    operation: 'events.get_multi_task_metrics',
    body: ({ task }) => ({ tasks: [task] }),
    calls: 300,
  },
  {
    label: 'events.get_scalar_metrics_and_variants',
    operation: 'events.get_scalar_metrics_and_variants',
    body: ({ task }) => ({ task }),
    calls: 300,
  },
  {
    label: 'events.get_task_metrics[wide task]',
    operation: 'events.get_task_metrics',
    body: ({ wideTask }) => ({ tasks: [wideTask] }),
    calls: 300,
  },
  {
    label: 'events.get_scalar_metrics_and_variants[wide task]',
    operation: 'events.get_scalar_metrics_and_variants',
    body: ({ wideTask }) => ({ task: wideTask }),
  },
  {
    label: 'events.scalar_metrics_iter_histogram[key=iter]',
    operation: 'events.scalar_metrics_iter_histogram',
    body: ({ task }) => ({ task }),
  },
  {
    label: 'events.scalar_metrics_iter_histogram[key=iter,min_max]',
    operation: 'events.scalar_metrics_iter_histogram',
    body: ({ task }) => ({ task, min_max: true }),
    seconds: 60, // ~2 s a round: 8-11 calls in 20 s
  },
  {
    label: 'events.scalar_metrics_iter_histogram[key=timestamp]',
    operation: 'events.scalar_metrics_iter_histogram',
    body: ({ task }) => ({ task, key: 'timestamp' }),
    // ~3 s a round (the call, its replay, its delivery): a p50 of 7-10 calls wandered by ±0.15.
    calls: 25,
    seconds: 90,
  },
  {
    label: 'events.multi_task_scalar_metrics_iter_histogram',
    operation: 'events.multi_task_scalar_metrics_iter_histogram',
    body: ({ task }) => ({ tasks: [task] }),
  },
  {
    label: 'events.scalar_metrics_iter_raw[batch=200000,count_total]',
    operation: 'events.scalar_metrics_iter_raw',
    body: ({ task }) => ({ task, metric: { metric: 'loss' }, batch_size: 200_000, count_total: true }),
    calls: 25,
    seconds: 40,
  },
  METRIC_DATA,
  LATEST_VALUES,
  {
    label: 'events.get_task_single_value_metrics',
    operation: 'events.get_task_single_value_metrics',
    body: ({ task }) => ({ tasks: [task] }),
  },
  { label: 'events.get_task_events[first page]', operation: 'events.get_task_events', body: ({ task }) => ({ task }) },
  {
    label: 'events.get_task_events[scalars,batch=1000,first]',
    operation: 'events.get_task_events',
    body: ({ task }) => ({ task, event_type: 'training_stats_scalar', batch_size: 1000 }),
  },
  {
    label: 'events.get_task_events[scalars,batch=1000,next]',
    operation: 'events.get_task_events',
    body: ({ task, scrollId }) => ({ task, scroll_id: scrollId, batch_size: 1000 }),
  },
  {
    label: 'events.get_task_events[logs,one page of 200k]',
    operation: 'events.get_task_events',
    body: ({ task }) => ({ task, event_type: 'log', count_total: false }),
    calls: 15,
    seconds: 30,
  },
];

/**
 * Extension point for the log, plot and debug-image reads: a case is
 * measured when the service serves its operation. Their store work is
 * recorded like the others', nothing else is needed.
 */
export const OTHER_CASES: BenchCase[] = [
  { label: 'events.get_task_log', operation: 'events.get_task_log', body: ({ task }) => ({ task, batch_size: 5000 }) },
  { label: 'events.get_task_plots', operation: 'events.get_task_plots', body: ({ task }) => ({ task, iters: 1 }) },
  {
    label: 'events.debug_images',
    operation: 'events.debug_images',
    body: ({ task }) => ({ metrics: [{ task }], iters: 3 }),
  },
];

/**
 * Reads whose work is bounded by their page, on the big task and on the
 * small one (1% of its data), to show that their cost follows what they
 * return, not what the task holds. The histograms are absent on purpose:
 * they downsample every point of the series they read.
 */
export const SCALING_CASES: Array<{ label: string; operation: string; body: (plan: SeedPlan) => unknown }> = [
  {
    label: 'events.get_task_log[100 newest]',
    operation: 'events.get_task_log',
    body: ({ task }) => ({ task, batch_size: 100 }),
  },
  {
    label: 'events.get_task_log[100 from the middle]',
    operation: 'events.get_task_log',
    body: ({ task, t0, logs }) => ({ task, batch_size: 100, from_timestamp: t0 + Math.floor(logs / 2) * 5 }),
  },
  {
    label: 'events.get_task_events[scalars,batch=1000,no total]',
    operation: 'events.get_task_events',
    body: ({ task }) => ({ task, event_type: 'training_stats_scalar', batch_size: 1000, count_total: false }),
  },
  METRIC_DATA,
  LATEST_VALUES,
  { label: 'events.get_task_metrics', operation: 'events.get_task_metrics', body: ({ task }) => ({ tasks: [task] }) },
  {
    label: 'events.get_task_plots[iters=1]',
    operation: 'events.get_task_plots',
    body: ({ task }) => ({ task, iters: 1 }),
  },
  {
    label: 'events.debug_images[iters=3]',
    operation: 'events.debug_images',
    body: ({ task }) => ({ metrics: [{ task }], iters: 3 }),
  },
];

/**
 * The measure's control: an API call whose only work is get_task_metrics's recorded store work,
 * replayed by the benchmark's own client (`bench.replayed`: no read code of ours, no store client
 * of ours). Timed like a read and printed, never counted in worst_ratio: its api / (store +
 * delivery) is what the measure reads for no code at all, the floor every read's ratio stands on
 * (docs/performance.md, "A control for the measure"). Measured when that read was.
 */
export const CONTROL_CASES: BenchCase[] = [
  {
    label: 'control[get_task_metrics store work replayed in a call]',
    operation: 'bench.replayed',
    body: () => ({}),
    calls: 300,
    replaysStoreWorkOf: 'events.get_task_metrics',
  },
];
