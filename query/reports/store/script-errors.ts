/** The words the report and project scripts answer, as the contract's errors (reports.md §7). */
import { apiError, type ApiError } from '../../../shared/errors/error-catalogue.js';
import { pyRepr } from '../../../shared/protocol/python-repr.js';
import { MAX_PROJECT_DEPTH } from './project-path.js';

export type ScriptReply = [string, ...string[]];

export function invalidTaskId(id: string, company: string): ApiError {
  return apiError('invalid_task_id', undefined, [
    ['id', id],
    ['company', company],
  ]);
}

export function invalidProjectId(id: string): ApiError {
  return apiError('invalid_project_id', undefined, [['id', id]]);
}

export function publicProjectForbidden(id: string): ApiError {
  return apiError('forbidden_modification', `cannot modify public project(s), ids=(${pyRepr(id)},)`);
}

interface ReplyContext {
  id?: string;
  company: string;
  name?: string;
}

/** The error of an `{'err', word, detail}` reply. */
export function scriptError(reply: ScriptReply, context: ReplyContext): ApiError {
  const [, word, detail = ''] = reply;
  const id = context.id ?? '';
  switch (word) {
    case 'invalid':
      return invalidTaskId(id, context.company);
    case 'public':
      return apiError('forbidden_modification', `cannot modify public task(s), ids=(${pyRepr(id)},)`);
    case 'not_report':
      return apiError('not_a_report', undefined, [['id', id]]);
    case 'exists':
      return apiError('report_name_exists', undefined, [
        ['name', context.name ?? ''],
        ['company', context.company],
      ]);
    case 'status':
      return apiError('invalid_task_status', undefined, [
        ['expected', 'created'],
        ['status', detail],
      ]);
    case 'cannot_delete':
      return apiError('task_cannot_be_deleted', undefined, [
        ['task', id],
        ['expected', 'created'],
        ['current', detail],
      ]);
    case 'depth':
      return apiError('project_path_too_deep', undefined, [['max_depth', MAX_PROJECT_DEPTH]]);
    case 'public_project':
      return apiError('public_project_exists', undefined, [['name', detail]]);
    case 'short':
      return apiError('data_validation_error', undefined, [['name', 'String value is too short']]);
    default:
      return apiError('internal_error', `unexpected store reply ${word}`);
  }
}

export const isOk = (reply: ScriptReply) => reply[0] === 'ok';
