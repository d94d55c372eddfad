/**
 * events.get_scalar_metrics_and_variants and
 * events.get_vector_metrics_and_variants (events.md §3): the same answer
 * for one event type each.
 */
import { defineOperation, JsonText } from '../../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import type { EventType } from '../common/event-read-fields.js';
import { namespaceOf } from '../store/entity-access.js';
import { listingView } from './listing-views.js';
import { metricVariantsMap, ofType } from './metric-variants-map.js';
import { readableListings } from './readable-listings.js';

export function metricsAndVariantsOperation(deps: QueryDeps, name: string, type: EventType) {
  return defineOperation({
    name,
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }), model_events: bool({ default: false }) }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const [entries] = await readableListings(
        deps,
        context.identity.company,
        namespace,
        [request.task],
        [request.task],
      );
      // The answer's JSON, once per listing read: it holds every variant of the type.
      return listingView(
        entries!,
        `metrics and variants ${type}`,
        () =>
          new JsonText(
            JSON.stringify({ metrics: Object.fromEntries(metricVariantsMap(entries!.filter(ofType(type)))) }),
          ),
      );
    },
  });
}
