/**
 * events.get_multi_task_plots (events.md §7.2), and the page builder that
 * reports.get_task_data's `plots` section reuses (plots-section.ts).
 *
 * The candidates are found on narrow rows: the `iters` latest iterations of
 * every (entity, metric, variant) series. That is enough: an iteration among
 * the `iters` highest distinct ones of an (entity, metric) — or of an
 * entity — is among the `iters` highest of every variant that has a plot
 * there. Bodies are read for the page's plots only.
 */
import { metricFilter, type MetricVariantsInput } from '../common/metric-variants.js';
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str, strList } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import {
  multiTaskPlotCandidates,
  multiTaskPlotsPage,
  type MultiTaskPlotsMap,
  type MultiTaskPlotsPosition,
} from './multi-task-plots-page.js';
import { decodeCursor, encodeCursor, invalidScrollIdError } from '../common/scroll-cursor.js';
import { needsTasksOrTask, taskAliasField } from '../common/event-read-fields.js';
import { fetchPlotEvents, PLOT_POINT_FIELDS, plotRefKey } from '../store/plot-bodies.js';
import {
  decodePositions,
  HAS_ITER,
  metricFilterCondition,
  runStatement,
  scopeCondition,
  where,
} from '../store/plot-image-influx.js';
import { metricVariantsList, tasksWithAlias } from '../common/log-plot-image-fields.js';
import { namespaceOf, type Namespace } from '../store/entity-access.js';
import type { StoredEvent } from '../store/stored-events.js';

const PURPOSE = 'get_multi_task_plots';

const request = needsTasksOrTask(
  requestSchema({
    tasks: strList({ minItems: 1 }),
    task: taskAliasField(),
    iters: int({ min: 1, default: 1 }),
    last_iters_per_task_metric: bool({ default: true }),
    metrics: metricVariantsList(),
    scroll_id: str(),
    no_scroll: bool({ default: false }),
    model_events: bool({ default: false }),
  }),
);

export interface MultiTaskPlotsSelection {
  readonly entities: readonly string[];
  readonly namespace: Namespace;
  readonly iters: number;
  readonly metrics: readonly MetricVariantsInput[] | null;
  readonly lastItersPerTaskMetric: boolean;
}

interface MultiTaskPlotsCursor {
  e: string[];
  n: Namespace;
  i: number;
  l: boolean;
  m: MetricVariantsInput[] | null;
  p: MultiTaskPlotsPosition | null;
  t: number;
}

export interface MultiTaskPlotsResult {
  plots: MultiTaskPlotsMap<StoredEvent>;
  returned: number;
  total: number;
  position: MultiTaskPlotsPosition | null;
}

export function getMultiTaskPlotsOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.get_multi_task_plots',
    minVersion: '1.8',
    servedFrom: '1.0',
    request,
    async handle(req, context) {
      const company = context.identity.company;
      const tasks = tasksWithAlias(req.tasks, req.task);
      let cursor: MultiTaskPlotsCursor | undefined;
      if (req.scroll_id) {
        cursor = decodeCursor(deps.signingSecret, company, req.scroll_id, PURPOSE) as MultiTaskPlotsCursor | undefined;
        if (cursor === undefined) throw invalidScrollIdError(req.scroll_id);
      }
      // A continuation pages the cursor's selection; the request's is only validated.
      const selection: MultiTaskPlotsSelection = cursor
        ? {
            entities: cursor.e,
            namespace: cursor.n,
            iters: cursor.i,
            metrics: cursor.m,
            lastItersPerTaskMetric: cursor.l,
          }
        : {
            entities: tasks,
            namespace: namespaceOf(req.model_events),
            iters: req.iters,
            metrics: req.metrics ?? null,
            lastItersPerTaskMetric: req.last_iters_per_task_metric,
          };
      const records = await deps.entities.requireReadable(company, selection.namespace, selection.entities);
      const names = new Map(records.map((r) => [r.id, r.name]));
      const page = await multiTaskPlots(deps, company, selection, names, cursor?.p ?? null);
      const total = cursor?.t ?? page.total;
      const next: MultiTaskPlotsCursor = {
        e: [...selection.entities],
        n: selection.namespace,
        i: selection.iters,
        l: selection.lastItersPerTaskMetric,
        m: selection.metrics ? [...selection.metrics] : null,
        p: page.position,
        t: total,
      };
      return {
        plots: page.plots,
        returned: page.returned,
        total,
        scroll_id: req.no_scroll ? null : encodeCursor(deps.signingSecret, company, next, PURPOSE),
      };
    },
  });
}

interface Candidate {
  readonly entity: string;
  readonly metric: string;
  readonly variant: string;
  readonly iter: number;
  /** The plot point as read (plot-bodies.ts PLOT_POINT_FIELDS): the page then reads only its bodies. */
  readonly point: Readonly<Record<string, unknown>>;
}

/** The page after `position` (null: the first), with full plot events; `names` maps entity ids to names. */
export async function multiTaskPlots(
  deps: QueryDeps,
  company: string,
  selection: MultiTaskPlotsSelection,
  names: ReadonlyMap<string, string>,
  position: MultiTaskPlotsPosition | null,
): Promise<MultiTaskPlotsResult> {
  const entities = [...new Set(selection.entities)];
  if (entities.length === 0) return { plots: Object.create(null), returned: 0, total: 0, position };
  const condition = where(
    scopeCondition(company, selection.namespace, entities),
    metricFilterCondition(metricFilter(selection.metrics)),
    HAS_ITER,
  );
  const series = await runStatement(
    deps.influx,
    `SELECT ${PLOT_POINT_FIELDS} FROM "plot" WHERE ${condition} GROUP BY "e","m","v" ORDER BY time DESC LIMIT ${selection.iters}`,
  );
  const matching: Candidate[] = decodePositions(series).map((p) => ({
    entity: p.entity!,
    metric: p.metric,
    variant: p.variant,
    iter: p.iter!,
    point: p.fields,
  }));
  const candidates = multiTaskPlotCandidates(matching, selection.iters, selection.lastItersPerTaskMetric);
  const page = multiTaskPlotsPage(candidates, { iters: selection.iters, position, nameOf: (e) => names.get(e) ?? e });

  const groups = [...eachGroup(page.plots)];
  const bodies = await fetchPlotEvents(
    deps,
    company,
    selection.namespace,
    groups.flatMap((g) => g.plots),
  );
  for (const group of groups) {
    (group as { plots: unknown[] }).plots = group.plots.flatMap((c) => bodies.get(plotRefKey(c)) ?? []);
  }
  return {
    plots: page.plots as unknown as MultiTaskPlotsMap<StoredEvent>,
    returned: page.returned,
    total: page.total,
    position: page.position,
  };
}

function* eachGroup<E>(plots: MultiTaskPlotsMap<E>): Iterable<{ plots: E[] }> {
  for (const variants of Object.values(plots)) {
    for (const entities of Object.values(variants)) {
      for (const iterations of Object.values(entities)) yield* Object.values(iterations);
    }
  }
}
