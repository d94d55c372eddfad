/**
 * events.delete_for_task, events.delete_for_model and events.clear_scroll
 * (events.md §9). Deletions are synchronous and cover events acknowledged
 * but not yet stored: they run in the writer, in stream order
 * (control-requests.ts).
 */
import { defineOperation } from '../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../query-deps.js';
import { controlId, sendControl } from './store/control-requests.js';
import { navigationKey } from './store/navigation-store.js';

export function deleteOperations(deps: QueryDeps) {
  const deleteForTask = defineOperation({
    name: 'events.delete_for_task',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }), allow_locked: bool({ default: false }) }),
    async handle(request, context) {
      const company = context.identity.company;
      await deps.entities.requireDeletableTask(company, request.task, request.allow_locked);
      const { deleted } = await sendControl(deps, { op: 'delete_entity', c: company, n: 't', e: request.task, id: controlId() });
      return { deleted };
    },
  });

  const deleteForModel = defineOperation({
    name: 'events.delete_for_model',
    minVersion: '1.0',
    request: requestSchema({ model: str({ required: true }), allow_locked: bool({ default: false }) }),
    async handle(request, context) {
      const company = context.identity.company;
      await deps.entities.requireDeletableModel(company, request.model, request.allow_locked);
      const { deleted } = await sendControl(deps, { op: 'delete_entity', c: company, n: 'm', e: request.model, id: controlId() });
      return { deleted };
    },
  });

  const clearScroll = defineOperation({
    name: 'events.clear_scroll',
    minVersion: '2.18',
    request: requestSchema({ scroll_id: str() }),
    async handle(request, context) {
      // Cursors are stateless and stay usable; only a navigation state of this company is removed.
      if (request.scroll_id) await deps.redis.del(navigationKey(deps.keyPrefix, context.identity.company, request.scroll_id));
      return {};
    },
  });

  return [deleteForTask, deleteForModel, clearScroll];
}
