/**
 * Store side of the single-plot viewer, events.get_plot_sample (events.md
 * §7.4) and events.next_plot_sample (§7.5): InfluxDB finds the nearest
 * positions (per series the one or two iterations next to the current one)
 * and the events of the picked (metric, iteration). The rules are
 * plots/plot-sample-navigation.ts.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import type { QueryDeps } from '../../query-deps.js';
import type { SampleStateKey } from '../navigation/sample-state.js';
import type { MetricRange, PlotSampleState } from '../plots/plot-sample-navigation.js';
import type { Namespace } from './entity-access.js';
import { withPlotBodies } from './plot-bodies.js';
import {
  decodeEvents,
  decodePositions,
  HAS_ITER,
  iterTime,
  runStatement,
  runStatements,
  scopeCondition,
  seriesCondition,
  where,
} from './plot-image-influx.js';

/** Smallest and greatest iteration per metric (only the state's metric when navigation stays in it), ascending by metric. */
export async function plotMetricRanges(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  state: SampleStateKey,
): Promise<MetricRange[]> {
  const condition = where(
    scopeCondition(company, namespace, [state.task]),
    state.navigate_current_metric ? seriesCondition(state.metric) : undefined,
    HAS_ITER,
  );
  const [low, high] = await runStatements(deps.influx, [
    `SELECT "len" FROM "plot" WHERE ${condition} GROUP BY "m" ORDER BY time ASC LIMIT 1`,
    `SELECT "len" FROM "plot" WHERE ${condition} GROUP BY "m" ORDER BY time DESC LIMIT 1`,
  ]);
  const max = new Map(decodePositions(high!.series ?? []).map((p) => [p.metric, p.iter!]));
  return decodePositions(low!.series ?? [])
    .map((p) => ({ metric: p.metric, min_iteration: p.iter!, max_iteration: max.get(p.metric) ?? p.iter! }))
    .sort((a, b) => compareCodePoints(a.metric, b.metric));
}

/** The metric's events at its greatest iteration <= `iteration` (any when absent). */
export async function eventsAtLatest(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  task: string,
  metric: string,
  iteration: number | undefined,
) {
  const bound = iteration === undefined ? undefined : `time <= ${iterTime(iteration)}`;
  const latest = decodePositions(
    await runStatement(
      deps.influx,
      `SELECT "len" FROM "plot" WHERE ${where(scopeCondition(company, namespace, [task]), seriesCondition(metric), HAS_ITER, bound)} ORDER BY time DESC LIMIT 1`,
    ),
  )[0];
  return latest === undefined ? [] : eventsAt(deps, company, namespace, task, metric, latest.iter!);
}

export async function eventsAt(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  task: string,
  metric: string,
  iter: number,
) {
  const rows = await runStatement(
    deps.influx,
    `SELECT * FROM "plot" WHERE ${where(scopeCondition(company, namespace, [task]), seriesCondition(metric), `time = ${iterTime(iter)}`)}`,
  );
  const decoded = decodeEvents(rows, 'plot');
  await withPlotBodies(
    deps.influx,
    company,
    namespace,
    decoded.map((d) => d.event),
  );
  return decoded.map(({ event, iter: at }) => ({
    iter: at!,
    metric: event.metric as string,
    variant: event.variant as string,
    event,
  }));
}

/**
 * Per series, the two iterations nearest the current one in the navigation
 * direction, the current one included: enough for pickNextPlot whether it
 * moves by iteration only or by (iteration, metric).
 */
export async function nearestPositions(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  state: PlotSampleState,
  earlier: boolean,
) {
  const bound = state.iteration === null ? undefined : `time ${earlier ? '<=' : '>='} ${iterTime(state.iteration)}`;
  const condition = where(
    scopeCondition(company, namespace, [state.task]),
    state.navigate_current_metric ? seriesCondition(state.metric) : undefined,
    HAS_ITER,
    bound,
  );
  const rows = await runStatement(
    deps.influx,
    `SELECT "len" FROM "plot" WHERE ${condition} GROUP BY "m","v" ORDER BY time ${earlier ? 'DESC' : 'ASC'} LIMIT 2`,
  );
  return decodePositions(rows).map((p) => ({ iter: p.iter!, metric: p.metric }));
}
