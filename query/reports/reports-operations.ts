/**
 * The ten reports.* operations (reports.md §3), for the query target's
 * composition root. auth.login's `rememberIdentity` hook is
 * `rememberIdentityHook(deps)` from identity-directory.ts.
 */
import { deletionOperations, readOnlyOperations, type Operation } from '../../shared/protocol/operation.js';
import type { QueryDeps } from '../query-deps.js';
import { getAllExOperation } from './get-all-ex-operation.js';
import { getTaskDataOperation } from './get-task-data-operation.js';
import { deleteOperation, getTagsOperation, moveOperation } from './report-placement-operations.js';
import { archiveOperation, createOperation, publishOperation, updateOperation } from './report-write-operations.js';
import { ReportsContext } from './reports-context.js';

export function reportsOperations(deps: QueryDeps): Operation[] {
  const rc = new ReportsContext(deps);
  return [
    createOperation(rc),
    updateOperation(rc),
    publishOperation(rc),
    archiveOperation(rc, true),
    archiveOperation(rc, false),
    moveOperation(rc),
    ...deletionOperations(deleteOperation(rc)),
    ...readOnlyOperations(getTagsOperation(rc), getAllExOperation(rc), getTaskDataOperation(rc)),
  ];
}
