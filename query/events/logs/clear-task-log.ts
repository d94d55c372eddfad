/**
 * events.clear_task_log (events.md §6.3). The deletion goes through the
 * event stream as a control record, so the partition's writer runs it
 * after every event acknowledged before this request: log lines accepted
 * but not yet stored are deleted too, and the call returns once it ran.
 */
import type { ControlRecord } from '../../../shared/events/wire-format.js';
import { defineOperation, type Operation } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str, strList } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { controlId, sendControl } from '../store/control-requests.js';

const request = requestSchema({
  task: str({ required: true }),
  allow_locked: bool({ default: false }),
  threshold_sec: int({ min: 0 }),
  include_metrics: strList(),
  exclude_metrics: strList(),
});

export function clearTaskLogOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.clear_task_log',
    minVersion: '1.0',
    request,
    async handle(req, context) {
      const company = context.identity.company;
      await deps.entities.requireDeletableTask(company, req.task, req.allow_locked);
      const record: ControlRecord = { op: 'clear_task_log', c: company, e: req.task, id: controlId() };
      // "now" is when the request was received, not when the writer gets to it.
      if (req.threshold_sec) record.before = context.receivedAt - req.threshold_sec * 1000;
      // Empty lists mean "not given", as in ClearML (a Python falsy list).
      if (req.include_metrics && req.include_metrics.length > 0) record.include = req.include_metrics;
      if (req.exclude_metrics && req.exclude_metrics.length > 0) record.exclude = req.exclude_metrics;
      const { deleted } = await sendControl(deps, record);
      return { deleted };
    },
  });
}
