/**
 * events.get_plot_sample (events.md §7.4): the single-plot viewer's first
 * call, or a refresh of its state. The rules are plot-sample-navigation.ts;
 * the reads store/plot-sample-reads.ts.
 */
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { NO_ITERATION_BOUNDS } from '../navigation/sample-state.js';
import { namespaceOf } from '../store/entity-access.js';
import { NavigationStore } from '../store/navigation-store.js';
import { eventsAtLatest, plotMetricRanges } from '../store/plot-sample-reads.js';
import { plotSample, type PlotSampleState } from './plot-sample-navigation.js';

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
        start: {
          task: req.task,
          navigate_current_metric: req.navigate_current_metric,
          metric: req.metric,
          iteration: null,
        },
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
      return {
        scroll_id: id,
        events: answer.events,
        min_iteration: answer.min_iteration,
        max_iteration: answer.max_iteration,
      };
    },
  });
}
