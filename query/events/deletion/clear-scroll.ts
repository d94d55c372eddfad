/**
 * events.clear_scroll (events.md §9).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import { requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { navigationKey } from '../store/navigation-store.js';

export function clearScrollOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.clear_scroll',
    minVersion: '2.18',
    request: requestSchema({ scroll_id: str() }),
    async handle(request, context) {
      // Cursors are stateless and stay usable; only a navigation state of this company is removed.
      if (request.scroll_id)
        await deps.redis.del(navigationKey(deps.keyPrefix, context.identity.company, request.scroll_id));
      return {};
    },
  });
}
