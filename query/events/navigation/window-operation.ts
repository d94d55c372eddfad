/**
 * events.plots (events.md §7.3) and events.debug_images (§8.1): one page of
 * iterations per task, continuing, rebuilding or creating the navigation
 * state (an unknown or expired id silently starts a new one, §10).
 */
import { taskMetricSelections } from '../common/metric-variants.js';
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { windowStateAction } from './navigation-state.js';
import type { WindowKind, WindowTaskState } from './plot-window-navigation.js';
import { NavigationStore } from '../store/navigation-store.js';
import { taskMetricVariantsList } from '../common/log-plot-image-fields.js';
import { firstWindowPage, freshPageIndex, windowPage, type WindowPage } from '../store/window-pages.js';
import { namespaceOf } from '../store/entity-access.js';

export interface WindowNavigation {
  readonly tasks: readonly WindowTaskState[];
}

const request = requestSchema({
  metrics: taskMetricVariantsList({ required: true, minItems: 1 }),
  iters: int({ min: 1, default: 1 }),
  navigate_earlier: bool({ default: true }),
  refresh: bool({ default: false }),
  scroll_id: str(),
  model_events: bool({ default: false }),
});

const VERSIONS: Record<WindowKind, { name: string; minVersion: string; servedFrom?: string }> = {
  plots: { name: 'events.plots', minVersion: '1.0' },
  debug_images: { name: 'events.debug_images', minVersion: '2.7', servedFrom: '1.0' },
};

export function windowOperation(deps: QueryDeps, kind: WindowKind): Operation {
  return defineOperation({
    ...VERSIONS[kind],
    request,
    async handle(req, context) {
      const company = context.identity.company;
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const loaded = await store.load<WindowNavigation>(company, req.scroll_id, kind);
      let namespace = namespaceOf(req.model_events);
      const page = { iters: req.iters, navigateEarlier: req.navigate_earlier };
      let pages: WindowPage[];
      if (loaded !== undefined && windowStateAction(true, req.refresh) === 'continue') {
        namespace = loaded.namespace;
        const tasks = loaded.state.tasks;
        await deps.entities.requireReadable(
          company,
          namespace,
          tasks.map((t) => t.task),
        );
        pages = await Promise.all(tasks.map((state) => windowPage(deps, company, namespace, kind, state, page)));
      } else {
        const selections = taskMetricSelections(req.metrics!);
        // One Redis round trip: InfluxDB is asked only once every entity is known readable.
        const [, indexes] = await Promise.all([
          deps.entities.requireReadable(
            company,
            namespace,
            selections.map((s) => s.task),
          ),
          Promise.all(selections.map((s) => freshPageIndex(deps, company, namespace, kind, s, page.iters))),
        ]);
        pages = await Promise.all(
          selections.map((selection, i) =>
            firstWindowPage(deps, company, namespace, kind, selection, page, indexes[i]),
          ),
        );
      }
      const id = loaded === undefined ? store.newId() : req.scroll_id!;
      await store.save<WindowNavigation>(company, id, { kind, namespace, state: { tasks: pages.map((p) => p.state) } });
      return { scroll_id: id, metrics: pages.map((p) => ({ task: p.state.task, iterations: p.iterations })) };
    },
  });
}
