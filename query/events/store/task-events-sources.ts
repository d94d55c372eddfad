/**
 * The sources of one get_task_events page (events.md §5), fetched only as
 * far as the page needs: per measurement, the next `batch` points (plus one
 * per series) after the position in the requested direction (InfluxDB
 * orders by time, which is the iteration); the rest of the page's last
 * iteration where a source was still cut inside it; and, once every source
 * ran out of iterations inside the page,
 * the whole no-iteration group (InfluxDB's sentinel-time points and the
 * task's logs). The page itself is built by task-events/task-events-order.ts.
 */
import type { MetricFilter } from '../common/metric-variants.js';
import { EVENT_TYPE_OF, type Measurement } from '../../../shared/events/storage-layout.js';
import type { InfluxStore } from '../../../shared/stores/influx-store.js';
import {
  compareTaskEvents,
  pageOfTaskEvents,
  type TaskEventsOrder,
  type TaskEventsPage,
  type TaskEventsPosition,
} from '../task-events/task-events-order.js';
import type { MergedLogReader } from './log-stream-reader.js';
import { seriesOf } from './influx-rows.js';
import {
  allOf,
  entityWhere,
  HAS_ITER,
  metricFilterWhere,
  NO_ITER,
  timeCompare,
  type EntityRef,
} from './influx-where.js';
import { hasIterationLogs, LogSegments } from './log-segments.js';
import type { ListingEntry } from './metric-listing.js';
import { decodeInfluxRows, type SequencedEvent } from './stored-events.js';
import { withPlotBodies } from './plot-bodies.js';
import { PAGE_CHUNK_ROWS, type InfluxCsvReader } from './influx-csv.js';
import { ScalarCsvParser } from './scalar-csv-rows.js';

export interface TaskEventsSelection {
  ref: EntityRef;
  measurements: readonly Measurement[];
  /** Whether log events are selected (task namespace, event type log or all). */
  logs: boolean;
  filter: MetricFilter;
  order: TaskEventsOrder;
}

interface SourceRows {
  measurement: Measurement | 'log';
  events: SequencedEvent[];
  /** The read stopped at its limit: there may be more after its last event. */
  cut: boolean;
}

/**
 * A page; with `logTail`, the task's logs in the page's direction complete
 * its no-iteration group: they are merged into the events without an
 * iteration (by timestamp, then arrival) as the answer is written, so a
 * group of hundreds of thousands of lines is never held whole.
 */
export interface TaskEventsPageWithLogs extends TaskEventsPage<SequencedEvent> {
  logTail?: MergedLogReader;
}

export class TaskEventsReader {
  constructor(
    private readonly influx: InfluxStore,
    /** Scalars are read as CSV bytes (scalar-csv-rows.ts). */
    private readonly csv: InfluxCsvReader,
    private readonly logSegments: LogSegments,
    private readonly openLogs: (task: string, direction: TaskEventsOrder) => Promise<MergedLogReader>,
  ) {}

  async page(
    selection: TaskEventsSelection,
    listing: readonly ListingEntry[],
    position: TaskEventsPosition,
    batch: number,
  ): Promise<TaskEventsPageWithLogs> {
    if (position === 'end') return { events: [], position };
    const compare = compareTaskEvents(selection.order);
    // One iteration holds at most one point per series: reading that many more rows completes the
    // page's last iteration in the same request (the listing knows metric/variant series; images
    // with several keys per iteration may exceed it, then the iteration is re-read below).
    const seriesOf = (m: Measurement) =>
      listing.filter((e) => e.type === EVENT_TYPE_OF[m] && selection.filter.matches(e.metric, e.variant)).length;
    const sources = await Promise.all(
      selection.measurements.map((m) => this.iterationRows(selection, m, position, batch + seriesOf(m))),
    );
    if (selection.logs && hasIterationLogs(listing, selection.filter)) {
      // Rare (the SDK never sends it): logs with an iteration are placed by loading them.
      const withIter = (await this.logSegments.all(selection.ref.id, selection.filter)).filter(
        (e) => e.iter !== undefined,
      );
      sources.push({ measurement: 'log', events: withIter, cut: false });
    }
    for (const s of sources) s.events.sort(compare);
    let page = pageOfTaskEvents(
      sources.map((s) => s.events),
      position,
      batch,
      selection.order,
    );

    const last = page.events[page.events.length - 1];
    const lastIter = last?.iter;
    const cutInside = sources.filter(
      (s) => s.cut && lastIter !== undefined && s.events[s.events.length - 1]?.iter === lastIter,
    );
    for (const s of cutInside) {
      const whole = await this.rows(selection, s.measurement as Measurement, timeCompare('=', lastIter!));
      s.events = [...s.events.filter((e) => e.iter !== lastIter), ...whole].sort(compare);
    }
    const reachesNoIter = page.events.length < batch && sources.every((s) => !s.cut);
    let logTail: MergedLogReader | undefined;
    if (reachesNoIter) {
      const noIter = await Promise.all(selection.measurements.map((m) => this.rows(selection, m, NO_ITER)));
      if (selection.logs) {
        // Without a filter, and with no log event carrying an iteration, the logs are the rest of the
        // no-iteration group as stored, in stream order: the answer streams them (TaskEventsPageWithLogs).
        if (selection.filter.isEmpty && !hasIterationLogs(listing))
          logTail = await this.openLogs(selection.ref.id, selection.order);
        else
          noIter.push(
            (await this.logSegments.all(selection.ref.id, selection.filter)).filter((e) => e.iter === undefined),
          );
      }
      for (const events of noIter) sources.push({ measurement: 'log', events: events.sort(compare), cut: false });
    }
    if (cutInside.length > 0 || reachesNoIter)
      page = pageOfTaskEvents(
        sources.map((s) => s.events),
        position,
        batch,
        selection.order,
      );
    // Plot bodies are read for the page's plots only (plot-bodies.ts).
    await withPlotBodies(
      this.influx,
      selection.ref.company,
      selection.ref.namespace,
      // Scalars written as bytes (scalar-csv-rows.ts) are no plots: their objects are not built.
      page.events.filter((e) => e.writeJson === undefined).map((e) => e.event),
    );
    // The page reached the no-iteration group, so it holds all of it: the logs as well, whatever their number.
    return logTail === undefined ? page : { ...page, position: 'end', logTail };
  }

  /** The exact number of selected events (count_total). */
  async count(selection: TaskEventsSelection, listing: readonly ListingEntry[]): Promise<number> {
    const [influxCount, logCount] = await Promise.all([
      selection.measurements.length === 0
        ? Promise.resolve(0)
        : this.influx
            .query(
              `SELECT COUNT("ts") FROM ${selection.measurements.map((m) => `"${m}"`).join(', ')} WHERE ${this.where(selection)}`,
            )
            .then((results) => seriesOf(results).reduce((sum, s) => sum + Number(s.values[0]?.[1] ?? 0), 0)),
      selection.logs ? this.logSegments.countMatching(selection.ref.id, listing, selection.filter) : Promise.resolve(0),
    ]);
    return influxCount + logCount;
  }

  private where(selection: TaskEventsSelection, ...more: Array<string | undefined>): string {
    return allOf(entityWhere(selection.ref), metricFilterWhere(selection.filter), ...more);
  }

  private async iterationRows(
    selection: TaskEventsSelection,
    measurement: Measurement,
    position: TaskEventsPosition,
    limit: number,
  ): Promise<SourceRows> {
    const asc = selection.order === 'asc';
    const after = typeof position === 'number' ? timeCompare(asc ? '>' : '<', position) : undefined;
    const events = await this.rows(
      selection,
      measurement,
      allOf(HAS_ITER, after),
      `ORDER BY time ${asc ? 'ASC' : 'DESC'} LIMIT ${limit}`,
      PAGE_CHUNK_ROWS,
    );
    return { measurement, events, cut: events.length === limit };
  }

  private async rows(
    selection: TaskEventsSelection,
    measurement: Measurement,
    condition: string,
    tail = '',
    /** For a bounded read (a LIMIT): scalars then come in small chunks, parsed as InfluxDB reads on (influx-csv.ts). */
    chunkRows?: number,
  ): Promise<SequencedEvent[]> {
    const statement = `SELECT * FROM "${measurement}" WHERE ${this.where(selection, condition)} ${tail}`.trimEnd();
    if (measurement === 'scalar')
      return (await this.csv.parsed(statement, () => new ScalarCsvParser(), { chunkRows })).rows;
    const series = seriesOf(await this.influx.query(statement))[0];
    return series === undefined ? [] : decodeInfluxRows(series, measurement);
  }
}
