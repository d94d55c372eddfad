/**
 * Back from what the stores hold to the stored form of events.md §1.4:
 * InfluxDB rows (SELECT * of one measurement, tags as columns) and log
 * stream entries. Each decoded event keeps its arrival sequence (`seq`) out
 * of band, for ordering ties.
 */
import { inflateSync } from 'node:zlib';
import { epochMsToIso } from '../domain/iso-time.js';
import { decodeTagValue, EVENT_TYPE_OF, iterFromTime, type Measurement } from '../../../shared/events/storage-layout.js';
import type { InfluxSeries } from '../../../shared/stores/influx-store.js';

export type StoredEvent = Record<string, unknown>;

export interface SequencedEvent {
  /** The stored event; for pass-through log entries a lazily parsed view of `json`. */
  event: StoredEvent;
  iter: number | undefined;
  timestamp: number;
  seq: number;
  /** The stored event as JSON text, when it was read as text (log pages): answers embed it as is. */
  json?: string;
}

/** An event as JSON text for an answer: the stored text when there is one. */
export function eventJson(event: SequencedEvent): string {
  return event.json ?? JSON.stringify(event.event);
}

/** plot_str from its stored form (`p` + text, or `z` + base64 deflate). */
export function decodePlotString(stored: string): string {
  if (stored.startsWith('z')) return inflateSync(Buffer.from(stored.slice(1), 'base64')).toString('utf8');
  return stored.startsWith('p') ? stored.slice(1) : stored;
}

/** Decodes every row of a series of SELECT * FROM <measurement>. */
export function decodeInfluxRows(series: InfluxSeries, measurement: Measurement = series.name as Measurement): SequencedEvent[] {
  const col = Object.fromEntries(series.columns.map((name, i) => [name, i])) as Record<string, number | undefined>;
  const type = EVENT_TYPE_OF[measurement];
  const tag = (row: unknown[], name: string): string | undefined => {
    const fromColumn = col[name] === undefined ? undefined : (row[col[name]!] as string | null);
    const value = fromColumn ?? series.tags?.[name];
    return value === null || value === undefined ? undefined : value;
  };
  const field = (row: unknown[], name: string): unknown => (col[name] === undefined ? undefined : row[col[name]!]);
  return series.values.map((row) => {
    const iter = iterFromTime(row[col.time!] as number);
    const timestamp = field(row, 'ts') as number;
    const event: StoredEvent = {
      type,
      task: decodeTagValue(tag(row, 'e') ?? ''),
      timestamp,
      metric: decodeTagValue(tag(row, 'm') ?? ''),
      variant: decodeTagValue(tag(row, 'v') ?? ''),
      worker: field(row, 'w'),
      model_event: tag(row, 'n') === 'm',
      '@timestamp': epochMsToIso(field(row, 'at') as number),
    };
    if (iter !== undefined) event.iter = iter;
    switch (measurement) {
      case 'scalar':
        event.value = field(row, 'y');
        break;
      case 'vector':
        event.value = JSON.parse(field(row, 'y') as string);
        break;
      case 'image': {
        const url = field(row, 'u');
        const key = tag(row, 'k');
        if (url !== null && url !== undefined) event.url = url;
        if (key !== undefined) event.key = decodeTagValue(key);
        break;
      }
      case 'plot': {
        event.plot_str = decodePlotString((field(row, 'p') as string) ?? 'p');
        event.plot_len = field(row, 'len');
        const src = field(row, 'src');
        if (typeof src === 'string' && src !== '') event.source_urls = JSON.parse(src);
        const valid = field(row, 'valid');
        if (typeof valid === 'boolean') event.valid_plot = valid;
        break;
      }
    }
    return { event, iter, timestamp, seq: (field(row, 'q') as number) ?? 0 };
  });
}

/**
 * The stored log event as JSON text, straight from the entry: `type` and
 * `task` spliced in front of the stored fields (the stored object is never
 * empty), so a page is answered without parsing and re-serialising it.
 */
export function logEntryJson(task: string, json: string): string {
  return `{"type":"log","task":${JSON.stringify(task)},${json.slice(1)}`;
}

/**
 * A log entry without an iteration, kept as text: ordered by its ID
 * (timestamp, then arrival) and answered without parsing. Only entries whose
 * iteration is known to be absent (the metric listing says so) may be read
 * this way; `event` parses on first use.
 */
export function logEntryAsText(task: string, id: string, json: string): SequencedEvent {
  const dash = id.indexOf('-');
  const text = logEntryJson(task, json);
  let parsed: StoredEvent | undefined;
  return {
    get event() {
      return (parsed ??= JSON.parse(text) as StoredEvent);
    },
    iter: undefined,
    timestamp: Number(id.slice(0, dash)),
    seq: Number(id.slice(dash + 1)),
    json: text,
  };
}

/** A log stream entry (`<timestamp>-<seq>`, field `d`) back to the stored log event. */
export function decodeLogEntry(task: string, id: string, json: string): SequencedEvent {
  // The parsed object becomes the event: copying it into a new one (a spread)
  // doubled the cost of pages holding hundreds of thousands of lines. The
  // stored JSON never holds type or task (ingest's encoder leaves them out).
  const event = JSON.parse(json) as StoredEvent;
  event.type = 'log';
  event.task = task;
  const dash = id.indexOf('-');
  return { event, iter: event.iter as number | undefined, timestamp: event.timestamp as number, seq: Number(id.slice(dash + 1)) };
}
