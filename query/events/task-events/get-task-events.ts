/**
 * events.get_task_events (events.md §5): every event type of one entity,
 * by iteration (events without one last, in both directions), then
 * timestamp, then arrival; pages never split an iteration. The signed
 * cursor carries the selection, the position and the total.
 */
import { metricFilter } from '../common/metric-variants.js';
import { MEASUREMENT, type Measurement } from '../../../shared/events/storage-layout.js';
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool, enumOf, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { decodeCursor, encodeCursor, invalidScrollIdError } from '../common/scroll-cursor.js';
import { TASK_EVENTS_MAX_BATCH, type TaskEventsOrder, type TaskEventsPosition } from './task-events-order.js';
import {
  EVENT_TYPES,
  eventTypeField,
  metricsFilterField,
  type EventType,
  type MetricVariants,
} from '../common/event-read-fields.js';
import { namespaceOf, type Namespace } from '../store/entity-access.js';
import { LogSegments } from '../store/log-segments.js';
import { InfluxCsvReader } from '../store/influx-csv.js';
import { readableListings } from '../metrics/readable-listings.js';
import { MergedLogReader } from '../store/log-stream-reader.js';
import { taskEventsAnswer } from './task-events-answer.js';
import { TaskEventsReader, type TaskEventsSelection } from '../store/task-events-sources.js';

const PURPOSE = 'events.get_task_events';
export const TASK_EVENTS_DEFAULT_BATCH = 500;
/** Log entries per range read when a page streams the task's logs. */
const LOG_READ_CHUNK = 10_000;

interface TaskEventsCursor {
  e: string;
  n: Namespace;
  t: EventType | null;
  m: MetricVariants[] | null;
  o: TaskEventsOrder;
  ct: boolean;
  p: TaskEventsPosition;
  tot: number | null;
}

function isCursor(v: Record<string, unknown> | undefined): v is Record<string, unknown> & TaskEventsCursor {
  return (
    v !== undefined &&
    typeof v.e === 'string' &&
    (v.n === 't' || v.n === 'm') &&
    (v.t === null || (EVENT_TYPES as readonly unknown[]).includes(v.t)) &&
    (v.m === null ||
      (Array.isArray(v.m) &&
        v.m.every((m) => typeof m === 'object' && m !== null && typeof (m as MetricVariants).metric === 'string'))) &&
    (v.o === 'asc' || v.o === 'desc') &&
    typeof v.ct === 'boolean' &&
    (v.p === 'start' || v.p === 'end' || typeof v.p === 'number') &&
    (v.tot === null || typeof v.tot === 'number')
  );
}

function selectionOf(company: string, cursor: TaskEventsCursor): TaskEventsSelection {
  const measurements: Measurement[] =
    cursor.t === null ? Object.values(MEASUREMENT) : cursor.t === 'log' ? [] : [MEASUREMENT[cursor.t]];
  return {
    ref: { company, namespace: cursor.n, id: cursor.e },
    measurements,
    // Log events exist for tasks only (events.md §1.8).
    logs: cursor.n === 't' && (cursor.t === null || cursor.t === 'log'),
    filter: metricFilter(cursor.m),
    order: cursor.o,
  };
}

export function getTaskEventsOperation(deps: QueryDeps) {
  const csv = new InfluxCsvReader(deps.config, deps.storeCalls);
  return defineOperation({
    name: 'events.get_task_events',
    minVersion: '1.0',
    request: requestSchema({
      task: str({ required: true }),
      event_type: eventTypeField(),
      metrics: metricsFilterField(),
      order: enumOf('logorderenum', ['asc', 'desc'] as const, { default: 'asc' }),
      batch_size: int({ min: 1, default: TASK_EVENTS_DEFAULT_BATCH }),
      count_total: bool({ default: true }),
      scroll_id: str(),
      model_events: bool({ default: false }),
    }),
    async handle(request, context) {
      const company = context.identity.company;
      let cursor: TaskEventsCursor;
      if (request.scroll_id !== undefined) {
        const decoded = decodeCursor(deps.signingSecret, company, request.scroll_id, PURPOSE);
        if (!isCursor(decoded) || decoded.e !== request.task) throw invalidScrollIdError(request.scroll_id);
        cursor = decoded;
      } else {
        cursor = {
          e: request.task,
          n: namespaceOf(request.model_events),
          t: request.event_type ?? null,
          m: request.metrics?.length ? request.metrics : null,
          o: request.order ?? 'asc',
          ct: request.count_total,
          p: 'start',
          tot: null,
        };
      }
      const [listing] = await readableListings(deps, company, cursor.n, [cursor.e], [cursor.e]);
      const batch = Math.min(request.batch_size, TASK_EVENTS_MAX_BATCH);
      const selection = selectionOf(company, cursor);
      const reader = new TaskEventsReader(
        deps.influx,
        csv,
        new LogSegments(deps.redis, deps.keyPrefix),
        (task, direction) =>
          MergedLogReader.open(deps.redis, deps.keyPrefix, task, { direction, chunk: LOG_READ_CHUNK, readAhead: true }),
      );
      const [page, total] = await Promise.all([
        reader.page(selection, listing, cursor.p, batch),
        cursor.ct && cursor.tot === null ? reader.count(selection, listing) : Promise.resolve(cursor.tot),
      ]);
      const next: TaskEventsCursor = { ...cursor, p: page.position, tot: total };
      return taskEventsAnswer(page, {
        task: cursor.e,
        total,
        scrollId: encodeCursor(deps.signingSecret, company, next, PURPOSE),
        order: cursor.o,
      });
    },
  });
}
