/**
 * Store side of the iteration windows of events.plots (events.md §7.3) and
 * events.debug_images (§8.1); the rules are domain/plot-window-navigation.ts.
 *
 * A state is built from the variants that have events plus, for images,
 * the validity of each variant. A page reads narrow rows first — the
 * `iters` distinct iterations nearest the start of every variant within the
 * window bounds, which include the `iters` nearest over the task — then the
 * events of the chosen iterations, which are contiguous among the
 * candidates, so one time range covers them.
 */
import type { TaskMetricSelection } from '../../shared/events/domain/metric-variants.js';
import type { QueryDeps } from '../query-deps.js';
import {
  newWindowTaskState,
  pickWindowIterations,
  stepWindowTask,
  windowBounds,
  type PresentVariant,
  type WindowKind,
  type WindowTaskState,
} from './domain/plot-window-navigation.js';
import { imageVariantsWithValidity } from './debug-images-validity-store.js';
import { decodeEvents, decodePositions, HAS_ITER, iterTime, metricFilterCondition, metricsCondition, nearestPerVariant, runStatement, scopeCondition, where } from './plots-influx.js';
import type { Namespace } from './store/entity-access.js';
import type { StoredEvent } from './store/stored-events.js';

const SPEC = {
  plots: { measurement: 'plot', narrowField: '"len"' },
  debug_images: { measurement: 'image', narrowField: '"u"' },
} as const;

/**
 * Fresh task states (positions none) for the request's selections, in
 * order. Which variants exist is read from InfluxDB, the store the pages
 * are read from (the metric listing is applied after the points, so a
 * state built from it could briefly miss variants whose plots are visible).
 */
export async function buildWindowStates(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  kind: WindowKind,
  selections: readonly TaskMetricSelection[],
): Promise<WindowTaskState[]> {
  return Promise.all(
    selections.map(async (selection) => {
      const selected = metricFilterCondition(selection.metrics);
      if (kind === 'debug_images') {
        return newWindowTaskState(selection, await imageVariantsWithValidity(deps, company, namespace, selection.task, selected));
      }
      const latest = await runStatement(
        deps.influx,
        `SELECT "len" FROM "plot" WHERE ${where(scopeCondition(company, namespace, [selection.task]), selected)} GROUP BY "m","v" ORDER BY time DESC LIMIT 1`,
      );
      const present: PresentVariant[] = decodePositions(latest).map((p) => ({ metric: p.metric, variant: p.variant }));
      return newWindowTaskState(selection, present);
    }),
  );
}

export interface WindowPage {
  iterations: Array<{ iter: number; events: StoredEvent[] }>;
  state: WindowTaskState;
}

/** The next page of one task, and its state with the positions moved. */
export async function windowPage(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  kind: WindowKind,
  state: WindowTaskState,
  request: { readonly iters: number; readonly navigateEarlier: boolean },
): Promise<WindowPage> {
  if (state.metrics.length === 0) return { iterations: [], state };
  const spec = SPEC[kind];
  const bounds = windowBounds(state, request.navigateEarlier);
  const selected = where(
    scopeCondition(company, namespace, [state.task]),
    metricsCondition(state.metrics.map((m) => ({ metric: m.metric, variants: m.requested_variants }))),
  );
  // Per variant, rows until `iters` distinct iterations (an iteration may hold several images of a variant).
  const narrow = await nearestPerVariant(
    deps.influx,
    {
      select: spec.narrowField,
      from: spec.measurement,
      condition: where(
        selected,
        HAS_ITER,
        bounds.below === undefined ? undefined : `time < ${iterTime(bounds.below)}`,
        bounds.above === undefined ? undefined : `time > ${iterTime(bounds.above)}`,
      ),
      order: bounds.earlier ? 'DESC' : 'ASC',
      want: request.iters,
    },
    (rows) => new Set(rows.map((r) => r.iter)).size >= request.iters,
  );
  const chosen = pickWindowIterations(
    narrow.map((p) => p.iter!),
    bounds,
    request.iters,
  );
  if (chosen.length === 0) return { iterations: [], state };
  const lo = Math.min(...chosen);
  const hi = Math.max(...chosen);
  const rows = await runStatement(deps.influx, `SELECT * FROM "${spec.measurement}" WHERE ${where(selected, `time >= ${iterTime(lo)}`, `time <= ${iterTime(hi)}`)}`);
  const events = decodeEvents(rows, spec.measurement).map(({ event, iter, timestamp }) => ({
    iter: iter!,
    metric: event.metric as string,
    variant: event.variant as string,
    timestamp,
    url: event.url as string | undefined,
    event,
  }));
  const step = stepWindowTask(state, events, { kind, iters: request.iters, navigateEarlier: request.navigateEarlier });
  return { iterations: step.iterations.map(({ iter, events: shown }) => ({ iter, events: shown.map((e) => e.event) })), state: step.state };
}
