/**
 * events.get_task_log (events.md §6.1): a page of log events navigating
 * from `from_timestamp` either way, never splitting a millisecond, and the
 * total capped at 10000 (independent of from_timestamp). Pages are range
 * reads on the task's log streams, so their cost grows with the page.
 *
 * Extension (docs/events-read.md): `search` filters by `msg` (substring, or
 * RE2 pattern with `search_regex`, `search_ignore_case` for either) over the
 * whole log, like the `metrics` filter; both narrow pages and total alike.
 */
import { metricFilter, type MetricFilter } from '../common/metric-variants.js';
import { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { defineOperation, JsonText, type Operation } from '../../../shared/protocol/operation.js';
import { bool, enumOf, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { compileLogSearch, type MessageMatcher } from './log-search.js';
import {
  logSegmentKeys,
  MergedLogReader,
  NEEDS_FETCH,
  type LogDirection,
  type LogEntry,
} from '../store/log-stream-reader.js';
import { metricVariantsList } from '../common/log-plot-image-fields.js';
import { decodeLogEntry, logEventHead, writeLogEvent, type StoredEvent } from '../store/stored-events.js';

export const LOG_MAX_BATCH = 10_000;
export const LOG_TOTAL_CAP = 10_000;
/** Largest range read while a filter skips entries. */
const FILTERED_CHUNK = 10_000;

const request = requestSchema({
  task: str({ required: true }),
  batch_size: int({ min: 1, default: 5000 }),
  navigate_earlier: bool({ default: true }),
  from_timestamp: int(),
  order: enumOf('logorderenum', ['asc', 'desc'] as const),
  metrics: metricVariantsList(),
  search: str(),
  search_regex: bool({ default: false }),
  search_ignore_case: bool({ default: false }),
});

/** Which log events a read keeps; undefined keeps all. */
export type LogKeep = LogFilter | undefined;

export interface LogFilter {
  /** A cheap test on the entry's JSON: false skips the entry without parsing it. */
  mayMatch(json: string): boolean;
  matches(event: StoredEvent): boolean;
}

function logFilter(metrics: MetricFilter, search: MessageMatcher | undefined): LogKeep {
  if (metrics.isEmpty && search === undefined) return undefined;
  const mayMatchJson = search?.mayMatchJson;
  return {
    mayMatch: mayMatchJson ?? (() => true),
    matches: (e) =>
      metrics.matches(String(e.metric ?? ''), String(e.variant ?? '')) && (search === undefined || search(e.msg)),
  };
}

export function getTaskLogOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.get_task_log',
    minVersion: '2.9',
    servedFrom: '1.0',
    request,
    async handle(req, context) {
      const company = context.identity.company;
      const matcher = compileLogSearch({
        text: req.search,
        regex: req.search_regex,
        ignoreCase: req.search_ignore_case,
      });
      await deps.entities.requireOne(company, 't', req.task);
      const keep = logFilter(metricFilter(req.metrics), matcher);
      const earlier = req.navigate_earlier;
      const [events, total] = await Promise.all([
        logPage(deps, req.task, {
          direction: earlier ? 'desc' : 'asc',
          afterMs: req.from_timestamp ? req.from_timestamp : undefined,
          batchSize: Math.min(req.batch_size, LOG_MAX_BATCH),
          keep,
        }),
        logTotal(deps, req.task, keep),
      ]);
      if ((earlier && req.order === 'asc') || (!earlier && req.order === 'desc')) events.reverse();
      const head = logEventHead(req.task);
      const out = new JsonBytesWriter(
        events.reduce((size, entry) => size + entry.data.length + head.next.length, 256),
      ).text('{"events":[');
      events.forEach((entry, i) => writeLogEvent(out, head, entry.data, i > 0));
      return new JsonText(out.text(`],"returned":${events.length},"total":${total}}`));
    },
  });
}

/**
 * The first `batchSize` kept events in `direction` after `afterMs`, plus the
 * rest of the last one's millisecond.
 */
export async function logPage(
  deps: QueryDeps,
  task: string,
  options: { direction: LogDirection; afterMs?: number; batchSize: number; keep: LogKeep },
): Promise<LogEntry[]> {
  const { batchSize, keep } = options;
  const reader = await MergedLogReader.open(deps.redis, deps.keyPrefix, task, {
    direction: options.direction,
    afterMs: options.afterMs,
    // One more than the page, to see where its last millisecond ends.
    chunk: Math.min(batchSize + 1, FILTERED_CHUNK),
    maxChunk: keep === undefined ? batchSize + 1 : FILTERED_CHUNK,
  });
  const page: LogEntry[] = [];
  let lastMs: number | undefined;
  for (;;) {
    let entry = reader.peekBuffered();
    if (entry === NEEDS_FETCH) {
      await reader.fill();
      entry = reader.peekBuffered() as LogEntry | undefined;
    }
    if (entry === undefined || (page.length >= batchSize && entry.ms !== lastMs)) break;
    reader.advance();
    if (
      keep !== undefined &&
      !(keep.mayMatch(entry.json) && keep.matches(decodeLogEntry(task, entry.id, entry.json).event))
    )
      continue;
    page.push(entry);
    lastMs = entry.ms;
  }
  return page;
}

/** min(number of kept events, 10000): stream lengths when nothing is filtered, else a scan that stops at the cap. */
export async function logTotal(deps: QueryDeps, task: string, keep: LogKeep): Promise<number> {
  if (keep === undefined) {
    const keys = await logSegmentKeys(deps.redis, deps.keyPrefix, task);
    const lengths = await Promise.all(keys.map((key) => deps.redis.xLen(key)));
    return Math.min(
      LOG_TOTAL_CAP,
      lengths.reduce((a, b) => a + b, 0),
    );
  }
  const reader = await MergedLogReader.open(deps.redis, deps.keyPrefix, task, {
    direction: 'asc',
    chunk: FILTERED_CHUNK,
  });
  let total = 0;
  for (let entry = await reader.next(); entry !== undefined && total < LOG_TOTAL_CAP; entry = await reader.next()) {
    if (keep.mayMatch(entry.json) && keep.matches(decodeLogEntry(task, entry.id, entry.json).event)) total++;
  }
  return total;
}
