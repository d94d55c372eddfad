/**
 * events.get_debug_image_sample (events.md §8.2): the debug-image viewer's
 * first call, or a refresh of its state. The rules are
 * debug-image-sample-navigation.ts; InfluxDB supplies per variant the
 * images at its nearest eligible iteration (at or above the variant's
 * min_iteration, with a url), which hold every image the rules can pick
 * (store/debug-image-sample-reads.ts).
 */
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { latestEligible } from '../store/debug-image-sample-reads.js';
import { imageVariantRanges } from '../store/debug-image-validity-store.js';
import { namespaceOf } from '../store/entity-access.js';
import { NavigationStore } from '../store/navigation-store.js';
import { debugImageSample, type DebugImageSampleState } from './debug-image-sample-navigation.js';

const KIND = 'debug_image_sample';

const getRequest = requestSchema({
  task: str({ required: true }),
  metric: str({ required: true }),
  variant: str({ required: true }),
  iteration: int(),
  navigate_current_metric: bool({ default: true }),
  refresh: bool({ default: false }),
  scroll_id: str(),
  model_events: bool({ default: false }),
});

export function getDebugImageSampleOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.get_debug_image_sample',
    minVersion: '2.12',
    request: getRequest,
    async handle(req, context) {
      const company = context.identity.company;
      const namespace = namespaceOf(req.model_events);
      await deps.entities.requireOne(company, namespace, req.task);
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const { id, state } = await store.openSample<DebugImageSampleState>(company, namespace, req.scroll_id, KIND, {
        refresh: req.refresh,
        start: {
          task: req.task,
          navigate_current_metric: req.navigate_current_metric,
          metric: req.metric,
          variant: req.variant,
          iteration: null,
        },
        rangesOf: (s) =>
          imageVariantRanges(deps, company, namespace, s.task, s.navigate_current_metric ? s.metric : undefined),
      });
      const target = { metric: req.metric, variant: req.variant };
      const range = state.ranges.find((r) => r.metric === target.metric && r.variant === target.variant);
      const candidates =
        range === undefined ? [] : await latestEligible(deps, company, namespace, state.task, range, req.iteration);
      const answer = debugImageSample(state, target, candidates, req.iteration);
      await store.save(company, id, { kind: KIND, namespace, state: answer.state });
      return {
        scroll_id: id,
        event: answer.event?.event ?? null,
        min_iteration: answer.min_iteration,
        max_iteration: answer.max_iteration,
      };
    },
  });
}
