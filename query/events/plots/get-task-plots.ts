/**
 * events.get_task_plots (events.md §7.1): per (metric, variant) the `iters`
 * latest plots not marked invalid, in pages of 10000 with a signed cursor.
 *
 * InfluxDB picks the latest `iters` rows per series (the plot points,
 * whose bodies live apart: plot-bodies.ts). A row marked `valid: false` cannot be excluded in the query
 * (a field condition would also drop the rows that have no `valid` field,
 * i.e. every plot when validation is off), so such series are re-read
 * further back until they yield `iters` valid rows or run out.
 */
import { metricFilter, type MetricFilter, type MetricVariantsInput } from '../common/metric-variants.js';
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { selectTaskPlots, taskPlotsPage, type TaskPlotsPosition } from './multi-task-plots-page.js';
import { decodeCursor, encodeCursor, invalidScrollIdError } from '../common/scroll-cursor.js';
import { fetchPlotEvents, PLOT_POINT_FIELDS, plotRefKey } from '../store/plot-bodies.js';
import {
  metricFilterCondition,
  nearestPerVariant,
  scopeCondition,
  where,
  type EventPosition,
} from '../store/plot-image-influx.js';
import { metricVariantsList } from '../common/log-plot-image-fields.js';
import { namespaceOf, type Namespace } from '../store/entity-access.js';

const PURPOSE = 'get_task_plots';

const request = requestSchema({
  task: str({ required: true }),
  iters: int({ min: 1, default: 1 }),
  metrics: metricVariantsList(),
  scroll_id: str(),
  no_scroll: bool({ default: false }),
  model_events: bool({ default: false }),
});

interface TaskPlotsCursor {
  e: string;
  n: Namespace;
  i: number;
  m: MetricVariantsInput[] | null;
  p: TaskPlotsPosition | null;
}

interface Selected {
  readonly metric: string;
  readonly variant: string;
  readonly iter: number | null;
  readonly valid_plot?: boolean;
  /** The plot point as read (plot-bodies.ts PLOT_POINT_FIELDS): the page then reads only its bodies. */
  readonly point: Readonly<Record<string, unknown>>;
}

export function getTaskPlotsOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.get_task_plots',
    minVersion: '1.8',
    servedFrom: '1.0',
    request,
    async handle(req, context) {
      const company = context.identity.company;
      let cursor: TaskPlotsCursor = {
        e: req.task,
        n: namespaceOf(req.model_events),
        i: req.iters,
        m: req.metrics ?? null,
        p: null,
      };
      if (req.scroll_id) {
        const decoded = decodeCursor(deps.signingSecret, company, req.scroll_id, PURPOSE) as
          TaskPlotsCursor | undefined;
        if (decoded === undefined || decoded.e !== req.task) throw invalidScrollIdError(req.scroll_id);
        cursor = decoded;
      }
      await deps.entities.requireOne(company, cursor.n, cursor.e);
      const selected = await selectedTaskPlots(deps, company, cursor.n, cursor.e, metricFilter(cursor.m), cursor.i);
      const page = taskPlotsPage(selected, cursor.p);
      const refs = page.plots.map((p) => ({ ...p, entity: cursor.e }));
      const bodies = await fetchPlotEvents(deps, company, cursor.n, refs);
      const plots = refs.flatMap((r) => bodies.get(plotRefKey(r)) ?? []);
      return {
        plots,
        returned: plots.length,
        total: page.total,
        scroll_id: req.no_scroll
          ? null
          : encodeCursor(deps.signingSecret, company, { ...cursor, p: page.position }, PURPOSE),
      };
    },
  });
}

/** The §7.1 selection, ordered by metric, variant, iteration descending (narrow rows). */
export async function selectedTaskPlots(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  task: string,
  filter: MetricFilter,
  iters: number,
): Promise<Selected[]> {
  const condition = where(scopeCondition(company, namespace, [task]), metricFilterCondition(filter));
  // Invalid rows do not count: a series whose window holds some is read further back.
  const rows = await nearestPerVariant(
    deps.influx,
    { select: PLOT_POINT_FIELDS, from: 'plot', condition, order: 'DESC', want: iters },
    (list) => validCount(list) >= iters,
  );
  const candidates = rows.map((p) => ({
    metric: p.metric,
    variant: p.variant,
    iter: p.iter,
    ...(typeof p.fields.valid === 'boolean' ? { valid_plot: p.fields.valid } : {}),
    point: p.fields,
  }));
  return selectTaskPlots(candidates, iters);
}

const validCount = (list: readonly EventPosition[]) => list.filter((p) => p.fields.valid !== false).length;
