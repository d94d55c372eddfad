/**
 * events.next_debug_image_sample (events.md §8.3): moves the debug-image
 * viewer's state one image on. The rules are
 * debug-image-sample-navigation.ts; the candidates come from
 * store/debug-image-sample-reads.ts.
 */
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import type { QueryDeps } from '../../query-deps.js';
import { nextSampleRequest } from '../common/log-plot-image-fields.js';
import { NO_ITERATION_BOUNDS, requireNextSampleState } from '../navigation/sample-state.js';
import { nextCandidates } from '../store/debug-image-sample-reads.js';
import { NavigationStore } from '../store/navigation-store.js';
import { nextDebugImageSample, type DebugImageSampleState } from './debug-image-sample-navigation.js';

const KIND = 'debug_image_sample';

export function nextDebugImageSampleOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.next_debug_image_sample',
    minVersion: '2.12',
    request: nextSampleRequest,
    async handle(req, context) {
      const company = context.identity.company;
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const loaded = await store.load<DebugImageSampleState>(company, req.scroll_id, KIND);
      const state = requireNextSampleState(loaded?.state, req.task, req.scroll_id);
      const namespace = loaded!.namespace;
      await deps.entities.requireOne(company, namespace, req.task);
      const candidates = await nextCandidates(
        deps,
        company,
        namespace,
        state,
        req.navigate_earlier,
        req.next_iteration,
      );
      const answer = nextDebugImageSample(state, candidates, req.navigate_earlier, req.next_iteration);
      if (!answer.moved) return { scroll_id: req.scroll_id, event: null, ...NO_ITERATION_BOUNDS };
      await store.save(company, req.scroll_id!, { kind: KIND, namespace, state: answer.state });
      return {
        scroll_id: req.scroll_id,
        event: answer.event?.event ?? null,
        min_iteration: answer.min_iteration,
        max_iteration: answer.max_iteration,
      };
    },
  });
}
