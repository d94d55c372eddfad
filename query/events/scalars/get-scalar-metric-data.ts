/**
 * events.get_scalar_metric_data (events.md §4.4): one metric's scalar
 * events, newest iteration first, 500 per call. The cursor holds the exact
 * last event returned (iteration, timestamp, arrival), so a page is the
 * next 500 in the order whatever the ties. InfluxDB's `ORDER BY time DESC`
 * already puts the no-iteration sentinel last; the ties within an
 * iteration (one point per variant) are ordered here.
 */
import { defineOperation, JsonText } from '../../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import { TAG } from '../../../shared/events/storage-layout.js';
import type { QueryDeps } from '../../query-deps.js';
import { decodeCursor, encodeCursor, invalidScrollIdError } from '../common/scroll-cursor.js';
import { namespaceOf, type Namespace } from '../store/entity-access.js';
import { InfluxCsvReader, PAGE_CHUNK_ROWS } from '../store/influx-csv.js';
import { allOf, entityWhere, NO_ITER, tagEquals, timeCompare, type EntityRef } from '../store/influx-where.js';
import { readableListings } from '../metrics/readable-listings.js';
import { ScalarCsvParser } from '../store/scalar-csv-rows.js';
import type { SequencedEvent } from '../store/stored-events.js';
import { metricDataTotal } from '../store/scalar-metric-data-total.js';
import { eventsAnswer } from '../task-events/task-events-answer.js';

export const METRIC_DATA_PAGE = 500;
const PURPOSE = 'events.get_scalar_metric_data';

interface Position {
  /** iteration; null for an event without one */
  i: number | null;
  ts: number;
  q: number;
}

interface MetricDataCursor {
  e: string;
  n: Namespace;
  m: string;
  p: Position | null;
  tot: number;
}

function isCursor(v: Record<string, unknown> | undefined): v is Record<string, unknown> & MetricDataCursor {
  const p = v?.p as Record<string, unknown> | null | undefined;
  return (
    v !== undefined &&
    typeof v.e === 'string' &&
    (v.n === 't' || v.n === 'm') &&
    typeof v.m === 'string' &&
    typeof v.tot === 'number' &&
    (p === null ||
      (typeof p === 'object' &&
        p !== undefined &&
        (p.i === null || typeof p.i === 'number') &&
        typeof p.ts === 'number' &&
        typeof p.q === 'number'))
  );
}

/** Newest first: iteration descending (none last), timestamp descending, latest arrival first. */
export function compareNewestFirst(a: Position, b: Position): number {
  if (a.i !== b.i) {
    if (a.i === null) return 1;
    if (b.i === null) return -1;
    return b.i - a.i;
  }
  return b.ts - a.ts || b.q - a.q;
}

const positionOf = (e: SequencedEvent): Position => ({ i: e.iter ?? null, ts: e.timestamp, q: e.seq });

export function getScalarMetricDataOperation(deps: QueryDeps) {
  const csv = new InfluxCsvReader(deps.config, deps.storeCalls);
  return defineOperation({
    name: 'events.get_scalar_metric_data',
    minVersion: '1.0',
    request: requestSchema({
      task: str({ required: true }),
      metric: str({ required: true }),
      scroll_id: str(),
      no_scroll: bool({ default: false }),
      model_events: bool({ default: false }),
    }),
    async handle(request, context) {
      const company = context.identity.company;
      let cursor: MetricDataCursor | undefined;
      if (request.scroll_id !== undefined) {
        const decoded = decodeCursor(deps.signingSecret, company, request.scroll_id, PURPOSE);
        if (!isCursor(decoded) || decoded.e !== request.task) throw invalidScrollIdError(request.scroll_id);
        cursor = decoded;
      }
      const namespace = cursor?.n ?? namespaceOf(request.model_events);
      const metric = cursor?.m ?? request.metric;
      const [listing] = await readableListings(deps, company, namespace, [request.task], [request.task]);
      const ref: EntityRef = { company, namespace, id: request.task };
      const where = allOf(entityWhere(ref), tagEquals(TAG.metric, metric));
      const variants = listing!.filter((e) => e.type === 'training_stats_scalar' && e.metric === metric).length;
      const { events, firstRead } = await nextPage(csv, where, cursor?.p ?? null, Math.max(1, variants));
      // The total is counted once, after the first page: its rows size the count (store/scalar-metric-data-total.ts).
      const total = cursor ? cursor.tot : await metricDataTotal(deps.influx, where, firstRead, variants);
      const last = events[events.length - 1];
      const next: MetricDataCursor = {
        e: request.task,
        n: namespace,
        m: metric,
        p: last ? positionOf(last) : (cursor?.p ?? null),
        tot: total,
      };
      const scrollId = request.no_scroll ? null : encodeCursor(deps.signingSecret, company, next, PURPOSE);
      // The events are written as the JSON bytes their CSV rows became (store/scalar-csv-rows.ts).
      return new JsonText(
        eventsAnswer(events, `],"returned":${events.length},"total":${total},"scroll_id":${JSON.stringify(scrollId)}}`),
      );
    },
  });
}

/** The page after the position, and the rows its first read returned (newest first) with whether they are all there is after it. */
async function nextPage(
  csv: InfluxCsvReader,
  where: string,
  after: Position | null,
  variants: number,
): Promise<{ events: SequencedEvent[]; firstRead: { rows: SequencedEvent[]; complete: boolean } }> {
  const bound = after === null ? undefined : after.i === null ? NO_ITER : timeCompare('<=', after.i);
  const limit = METRIC_DATA_PAGE + 2 * variants;
  const read = await rows(
    csv,
    `SELECT * FROM "scalar" WHERE ${allOf(where, bound)} ORDER BY time DESC LIMIT ${limit}`,
    PAGE_CHUNK_ROWS,
  );
  const firstRead = { rows: read, complete: read.length < limit };
  let events = read;
  if (events.length === limit) {
    // The last iteration read may be cut by the limit. Without it, 500 + a variant count of rows
    // remain after the position's iteration, enough for the page, unless the listing lagged the
    // points (more variants than counted): then that iteration is read whole.
    const lastIter = events[events.length - 1]!.iter;
    const complete = events.filter((e) => e.iter !== lastIter);
    events =
      pageAfter(complete, after).length === METRIC_DATA_PAGE
        ? complete
        : [
            ...complete,
            ...(await rows(
              csv,
              `SELECT * FROM "scalar" WHERE ${allOf(where, lastIter === undefined ? NO_ITER : timeCompare('=', lastIter))}`,
            )),
          ];
  }
  return { events: pageAfter(events, after), firstRead };
}

/** The first page's worth of events strictly after the position, newest first. */
function pageAfter(events: readonly SequencedEvent[], after: Position | null): SequencedEvent[] {
  const positioned = events.map((event) => ({ event, position: positionOf(event) }));
  positioned.sort((a, b) => compareNewestFirst(a.position, b.position));
  const start = after === null ? 0 : positioned.findIndex((e) => compareNewestFirst(e.position, after) > 0);
  return start < 0 ? [] : positioned.slice(start, start + METRIC_DATA_PAGE).map((e) => e.event);
}

async function rows(csv: InfluxCsvReader, statement: string, chunkRows?: number): Promise<SequencedEvent[]> {
  return (await csv.parsed(statement, () => new ScalarCsvParser(), { chunkRows })).rows;
}
