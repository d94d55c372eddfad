/**
 * events.delete_for_task (events.md §9). Deletions are synchronous and
 * cover events acknowledged but not yet stored: they run in the writer, in
 * stream order (store/control-requests.ts).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { controlId, sendControl } from '../store/control-requests.js';

export function deleteForTaskOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.delete_for_task',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }), allow_locked: bool({ default: false }) }),
    async handle(request, context) {
      const company = context.identity.company;
      await deps.entities.requireDeletableTask(company, request.task, request.allow_locked);
      const { deleted } = await sendControl(deps, {
        op: 'delete_entity',
        c: company,
        n: 't',
        e: request.task,
        id: controlId(),
      });
      return { deleted };
    },
  });
}
