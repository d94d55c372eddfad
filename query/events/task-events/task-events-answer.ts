/**
 * The `data` of events.get_task_events, written as bytes. A page whose
 * no-iteration group includes the task's logs (TaskEventsPageWithLogs) is
 * streamed: the logs are merged into the events without an iteration as
 * they are read, and sent in chunks, so the answer's size is never held in
 * memory and sending overlaps reading. Since `returned` is known only at
 * the end, it follows the events (key order does not matter in JSON).
 */
import { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { JsonStream, JsonText } from '../../../shared/protocol/operation.js';
import type { TaskEventsOrder } from './task-events-order.js';
import { NEEDS_FETCH, type LogEntry, type MergedLogReader } from '../store/log-stream-reader.js';
import { logEventHead, writeLogEvent, type SequencedEvent } from '../store/stored-events.js';
import type { TaskEventsPageWithLogs } from '../store/task-events-sources.js';

/** Bytes handed to the response at a time. */
const CHUNK_BYTES = 256 * 1024;

export interface TaskEventsAnswerFields {
  task: string;
  total: number | null;
  scrollId: string;
  order: TaskEventsOrder;
}

export function taskEventsAnswer(page: TaskEventsPageWithLogs, fields: TaskEventsAnswerFields): JsonText | JsonStream {
  const tail = (returned: number) =>
    `],"returned":${returned},"total":${JSON.stringify(fields.total)},"scroll_id":${JSON.stringify(fields.scrollId)}}`;
  const { logTail } = page;
  if (logTail === undefined) return new JsonText(eventsAnswer(page.events, tail(page.events.length)));
  return new JsonStream(() => streamedEvents(page.events, logTail, fields, tail));
}

async function* streamedEvents(
  events: readonly SequencedEvent[],
  logs: MergedLogReader,
  { task, order }: TaskEventsAnswerFields,
  tail: (returned: number) => string,
): AsyncGenerator<Buffer> {
  const head = logEventHead(task);
  const dir = order === 'asc' ? 1 : -1;
  // Logs belong to the no-iteration group: they go after every event with an iteration, among the others
  // by timestamp (a log's is its stream id's millisecond), then arrival.
  const logFirst = (e: SequencedEvent, log: LogEntry) =>
    e.iter === undefined && dir * (log.ms - e.timestamp || log.seq - e.seq) < 0;
  let out = new JsonBytesWriter(CHUNK_BYTES).text('{"events":[');
  let returned = 0;
  let i = 0;
  for (;;) {
    let log = logs.peekBuffered();
    if (log === NEEDS_FETCH) {
      await logs.fill();
      log = logs.peekBuffered() as LogEntry | undefined;
    }
    const event = events[i];
    if (event === undefined && log === undefined) break;
    if (event === undefined || (log !== undefined && logFirst(event, log))) {
      writeLogEvent(out, head, log!.data, returned > 0);
      logs.advance();
    } else {
      writeEvent(out, event, returned > 0);
      i++;
    }
    returned++;
    if (out.byteLength >= CHUNK_BYTES) {
      yield out.finish();
      out = new JsonBytesWriter(CHUNK_BYTES);
    }
  }
  yield out.text(tail(returned)).finish();
}

function writeEvent(out: JsonBytesWriter, event: SequencedEvent, afterAnother: boolean): void {
  // Scalars come as JSON bytes (store/scalar-csv-rows.ts): no object is built or serialised for them.
  if (event.writeJson !== undefined) return event.writeJson(out, afterAnother);
  const json = JSON.stringify(event.event);
  out.text(afterAnother ? `,${json}` : json);
}

/**
 * `{"events":[...]` followed by `tail` (which closes the list and the object). A page of objects
 * only is one stringify: per event, a stringify and a write into the buffer cost twice as much
 * (1,000 events: ~2 ms against ~0.7 ms).
 */
export function eventsAnswer(events: readonly SequencedEvent[], tail: string): string | JsonBytesWriter {
  if (!events.some((e) => e.writeJson !== undefined))
    return `{"events":${JSON.stringify(events.map((e) => e.event)).slice(0, -1)}${tail}`;
  // ~230 bytes a scalar event: room for them at once.
  const out = new JsonBytesWriter(events.length * 256).text('{"events":[');
  events.forEach((event, i) => writeEvent(out, event, i > 0));
  return out.text(tail);
}
