/**
 * events.get_multi_task_metrics (events.md §3).
 */
import { defineOperation, JsonText } from '../../../shared/protocol/operation.js';
import { bool } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { distinct, eventTypeField, withTasksList } from '../common/event-read-fields.js';
import { namespaceOf } from '../store/entity-access.js';
import type { ListingEntry } from '../store/metric-listing.js';
import { listingView } from './listing-views.js';
import { metricVariantsMap, ofType } from './metric-variants-map.js';
import { readableListings } from './readable-listings.js';

export function getMultiTaskMetricsOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.get_multi_task_metrics',
    minVersion: '1.0',
    request: withTasksList({ event_type: eventTypeField(), model_events: bool({ default: false }) }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const perEntity = await readableListings(
        deps,
        context.identity.company,
        namespace,
        request.tasks,
        distinct(request.tasks),
      );
      const answer = (entries: readonly ListingEntry[]) => ({
        metrics: [...metricVariantsMap(entries.filter(ofType(request.event_type)))].map(([metric, variants]) => ({
          metric,
          variants,
        })),
      });
      // One task: the kept listing's own view, as the answer's JSON (it holds every variant). Several
      // (the web UI's compare view): merged per call.
      if (perEntity.length > 1) return answer(perEntity.flat());
      return listingView(
        perEntity[0]!,
        `get_multi_task_metrics ${request.event_type}`,
        () => new JsonText(JSON.stringify(answer(perEntity[0]!))),
      );
    },
  });
}
