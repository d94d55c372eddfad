/**
 * events.next_plot_sample (events.md §7.5): moves the single-plot viewer's
 * state one plot on. The rules are plot-sample-navigation.ts; the reads
 * store/plot-sample-reads.ts.
 */
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import type { QueryDeps } from '../../query-deps.js';
import { nextSampleRequest } from '../common/log-plot-image-fields.js';
import { NO_ITERATION_BOUNDS, requireNextSampleState } from '../navigation/sample-state.js';
import { NavigationStore } from '../store/navigation-store.js';
import { eventsAt, nearestPositions } from '../store/plot-sample-reads.js';
import { movedTo, pickNextPlot, type PlotSampleState } from './plot-sample-navigation.js';

const KIND = 'plot_sample';

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
      return {
        scroll_id: req.scroll_id,
        events: answer.events.map((e) => e.event),
        min_iteration: answer.min_iteration,
        max_iteration: answer.max_iteration,
      };
    },
  });
}
