/**
 * events.get_multi_task_metrics (events.md §3).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { distinct, eventTypeField, withTasksList } from '../common/event-read-fields.js';
import { namespaceOf } from '../store/entity-access.js';
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
      const union = metricVariantsMap(perEntity.flat().filter(ofType(request.event_type)));
      return { metrics: [...union].map(([metric, variants]) => ({ metric, variants })) };
    },
  });
}
