/**
 * The single-plot viewer: events.get_plot_sample (events.md §7.4) and
 * events.next_plot_sample (§7.5). The rules are
 * domain/plot-sample-navigation.ts; here InfluxDB finds the nearest
 * positions (per series the one or two iterations next to the current one)
 * and the events of the picked (metric, iteration).
 */
import { compareCodePoints } from '../../shared/events/domain/code-point-order.js';
import { defineOperation, type Operation } from '../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../query-deps.js';
import {
  movedTo,
  NO_ITERATION_BOUNDS,
  pickNextPlot,
  plotSample,
  requireNextSampleState,
  type MetricRange,
  type PlotSampleState,
  type SampleStateKey,
} from './domain/navigation-state.js';
import { NavigationStore } from './store/navigation-store.js';
import { nextSampleRequest } from './common/log-plot-image-fields.js';
import { decodeEvents, decodePositions, HAS_ITER, iterTime, runStatement, runStatements, scopeCondition, seriesCondition, where } from './store/plot-image-influx.js';
import { namespaceOf, type Namespace } from './store/entity-access.js';

const KIND = 'plot_sample';

const getRequest = requestSchema({
  task: str({ required: true }),
  metric: str({ required: true }),
  iteration: int(),
  navigate_current_metric: bool({ default: true }),
  refresh: bool({ default: false }),
  scroll_id: str(),
  model_events: bool({ default: false }),
});


export function getPlotSampleOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.get_plot_sample',
    minVersion: '1.0',
    request: getRequest,
    async handle(req, context) {
      const company = context.identity.company;
      const namespace = namespaceOf(req.model_events);
      await deps.entities.requireOne(company, namespace, req.task);
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const { id, state } = await store.openSample<PlotSampleState>(company, namespace, req.scroll_id, KIND, {
        refresh: req.refresh,
        start: { task: req.task, navigate_current_metric: req.navigate_current_metric, metric: req.metric, iteration: null },
        rangesOf: (s) => plotMetricRanges(deps, company, namespace, s),
      });
      const range = state.ranges.find((r) => r.metric === req.metric);
      let answer = { state, events: [] as unknown[], ...NO_ITERATION_BOUNDS };
      if (range !== undefined) {
        const events = await eventsAtLatest(deps, company, namespace, req.task, req.metric, req.iteration);
        const sample = plotSample(state, req.metric, events, req.iteration);
        answer = { ...sample, events: sample.events.map((e) => e.event) };
      }
      await store.save(company, id, { kind: KIND, namespace, state: answer.state });
      return { scroll_id: id, events: answer.events, min_iteration: answer.min_iteration, max_iteration: answer.max_iteration };
    },
  });
}

export function nextPlotSampleOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.next_plot_sample',
    minVersion: '1.0',
    request: nextSampleRequest,
    async handle(req, context) {
      const company = context.identity.company;
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const loaded = await store.load<PlotSampleState>(company, req.scroll_id, KIND);
      const state = requireNextSampleState(loaded?.state, req.task, req.scroll_id);
      const namespace = loaded!.namespace;
      await deps.entities.requireOne(company, namespace, req.task);
      const positions = await nearestPositions(deps, company, namespace, state, req.navigate_earlier);
      const picked = pickNextPlot(state, positions, req.navigate_earlier, req.next_iteration);
      if (picked === undefined) return { scroll_id: req.scroll_id!, events: [], ...NO_ITERATION_BOUNDS };
      const events = await eventsAt(deps, company, namespace, req.task, picked.metric, picked.iter);
      const answer = movedTo(state, picked, events);
      await store.save(company, req.scroll_id!, { kind: KIND, namespace, state: answer.state });
      return { scroll_id: req.scroll_id, events: answer.events.map((e) => e.event), min_iteration: answer.min_iteration, max_iteration: answer.max_iteration };
    },
  });
}

/** Smallest and greatest iteration per metric (only the state's metric when navigation stays in it), ascending by metric. */
async function plotMetricRanges(deps: QueryDeps, company: string, namespace: Namespace, state: SampleStateKey): Promise<MetricRange[]> {
  const condition = where(scopeCondition(company, namespace, [state.task]), state.navigate_current_metric ? seriesCondition(state.metric) : undefined, HAS_ITER);
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
async function eventsAtLatest(deps: QueryDeps, company: string, namespace: Namespace, task: string, metric: string, iteration: number | undefined) {
  const bound = iteration === undefined ? undefined : `time <= ${iterTime(iteration)}`;
  const latest = decodePositions(
    await runStatement(deps.influx, `SELECT "len" FROM "plot" WHERE ${where(scopeCondition(company, namespace, [task]), seriesCondition(metric), HAS_ITER, bound)} ORDER BY time DESC LIMIT 1`),
  )[0];
  return latest === undefined ? [] : eventsAt(deps, company, namespace, task, metric, latest.iter!);
}

async function eventsAt(deps: QueryDeps, company: string, namespace: Namespace, task: string, metric: string, iter: number) {
  const rows = await runStatement(deps.influx, `SELECT * FROM "plot" WHERE ${where(scopeCondition(company, namespace, [task]), seriesCondition(metric), `time = ${iterTime(iter)}`)}`);
  return decodeEvents(rows, 'plot').map(({ event, iter: at }) => ({ iter: at!, metric: event.metric as string, variant: event.variant as string, event }));
}

/**
 * Per series, the two iterations nearest the current one in the navigation
 * direction, the current one included: enough for pickNextPlot whether it
 * moves by iteration only or by (iteration, metric).
 */
async function nearestPositions(deps: QueryDeps, company: string, namespace: Namespace, state: PlotSampleState, earlier: boolean) {
  const bound = state.iteration === null ? undefined : `time ${earlier ? '<=' : '>='} ${iterTime(state.iteration)}`;
  const condition = where(scopeCondition(company, namespace, [state.task]), state.navigate_current_metric ? seriesCondition(state.metric) : undefined, HAS_ITER, bound);
  const rows = await runStatement(deps.influx, `SELECT "len" FROM "plot" WHERE ${condition} GROUP BY "m","v" ORDER BY time ${earlier ? 'DESC' : 'ASC'} LIMIT 2`);
  return decodePositions(rows).map((p) => ({ iter: p.iter!, metric: p.metric }));
}
