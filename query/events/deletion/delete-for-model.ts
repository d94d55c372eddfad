/**
 * events.delete_for_model (events.md §9): like delete_for_task, run in the
 * writer in stream order (store/control-requests.ts).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { controlId, sendControl } from '../store/control-requests.js';

export function deleteForModelOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.delete_for_model',
    minVersion: '1.0',
    request: requestSchema({ model: str({ required: true }), allow_locked: bool({ default: false }) }),
    async handle(request, context) {
      const company = context.identity.company;
      await deps.entities.requireDeletableModel(company, request.model, request.allow_locked);
      const { deleted } = await sendControl(deps, {
        op: 'delete_entity',
        c: company,
        n: 'm',
        e: request.model,
        id: controlId(),
      });
      return { deleted };
    },
  });
}
