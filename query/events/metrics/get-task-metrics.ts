/**
 * events.get_task_metrics (events.md §3).
 */
import { compareCodePoints } from '../common/code-point-order.js';
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { distinct, eventTypeField, withTasksList } from '../common/event-read-fields.js';
import { namespaceOf } from '../store/entity-access.js';
import { listingView } from './listing-views.js';
import { ofType } from './metric-variants-map.js';
import { readableListings } from './readable-listings.js';

export function getTaskMetricsOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.get_task_metrics',
    minVersion: '1.0',
    request: withTasksList({ event_type: eventTypeField(), model_events: bool({ default: false }) }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const ids = distinct(request.tasks);
      const perEntity = await readableListings(deps, context.identity.company, namespace, request.tasks, ids);
      return {
        metrics: ids.map((task, i) => {
          const entries = perEntity[i]!;
          return {
            task,
            // Single values and events without an iteration do not count here (events.md §1.6).
            metrics: listingView(entries, `get_task_metrics ${request.event_type}`, () =>
              distinct(entries.filter((e) => e.regular && ofType(request.event_type)(e)).map((e) => e.metric)).sort(
                compareCodePoints,
              ),
            ),
          };
        }),
      };
    },
  });
}
