/**
 * Back from what the stores hold to the stored form of events.md §1.4:
 * InfluxDB rows (SELECT * of one measurement, tags as columns) and log
 * stream entries. Each decoded event keeps its arrival sequence (`seq`) out
 * of band, for ordering ties.
 */
import { inflateSync } from 'node:zlib';
import { epochMsToIso } from '../common/iso-time.js';
import {
  decodeTagValue,
  EVENT_TYPE_OF,
  iterFromTime,
  type Measurement,
} from '../../../shared/events/storage-layout.js';
import type { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import type { InfluxSeries } from '../../../shared/stores/influx-store.js';

export type StoredEvent = Record<string, unknown>;

export interface SequencedEvent {
  /** The stored event; for pass-through log entries a lazily parsed view of `json`. */
  event: StoredEvent;
  iter: number | undefined;
  timestamp: number;
  seq: number;
}

/** plot_str from its stored form (`p` + text, or `z` + base64 deflate). */
export function decodePlotString(stored: string): string {
  if (stored.startsWith('z')) return inflateSync(Buffer.from(stored.slice(1), 'base64')).toString('utf8');
  return stored.startsWith('p') ? stored.slice(1) : stored;
}

/** `f` remembering up to 64 answers (a handful of distinct inputs repeat over thousands of rows). */
function boundedMemo<K, V>(f: (key: K) => V): (key: K) => V {
  const seen = new Map<K, V>();
  return (key) => {
    let value = seen.get(key);
    if (value === undefined) {
      if (seen.size >= 64) seen.clear();
      value = f(key);
      seen.set(key, value);
    }
    return value;
  };
}

/** Decodes every row of a series of SELECT * FROM <measurement>. */
export function decodeInfluxRows(
  series: InfluxSeries,
  measurement: Measurement = series.name as Measurement,
): SequencedEvent[] {
  const col = Object.fromEntries(series.columns.map((name, i) => [name, i])) as Record<string, number | undefined>;
  const type = EVENT_TYPE_OF[measurement];
  const tag = (row: unknown[], name: string): string | undefined => {
    const fromColumn = col[name] === undefined ? undefined : (row[col[name]!] as string | null);
    const value = fromColumn ?? series.tags?.[name];
    return value === null || value === undefined ? undefined : value;
  };
  const field = (row: unknown[], name: string): unknown => (col[name] === undefined ? undefined : row[col[name]!]);
  // Rows of one answer repeat their tags and arrival times (a request's events share them): decode each once.
  const decodeTag = boundedMemo(decodeTagValue);
  const isoOf = boundedMemo(epochMsToIso);
  return series.values.map((row) => {
    const iter = iterFromTime(row[col.time!] as number);
    const timestamp = field(row, 'ts') as number;
    const event: StoredEvent = {
      type,
      task: decodeTag(tag(row, 'e') ?? ''),
      timestamp,
      metric: decodeTag(tag(row, 'm') ?? ''),
      variant: decodeTag(tag(row, 'v') ?? ''),
      worker: field(row, 'w'),
      model_event: tag(row, 'n') === 'm',
      '@timestamp': isoOf(field(row, 'at') as number),
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
 * What precedes a stored log entry's fields in an answer: `type` and `task`
 * spliced in front of the stored object (which never holds them and is
 * never empty), so pages are answered without parsing and re-serialising
 * what Redis returned.
 */
export function logEventHead(task: string): { first: Buffer; next: Buffer } {
  const head = `{"type":"log","task":${JSON.stringify(task)}`;
  return { first: Buffer.from(head), next: Buffer.from(`,${head}`) };
}

/** Appends the stored log entry `data` (its JSON bytes) to an answer, as an element of an array. */
export function writeLogEvent(
  out: JsonBytesWriter,
  head: { first: Buffer; next: Buffer },
  data: Buffer,
  afterAnother: boolean,
): void {
  out.bytes(afterAnother ? head.next : head.first);
  // An entry without its field reads as `{}` (log-stream-range.ts): nothing to splice.
  if (data.length <= 2) out.text('}');
  // The stored object's `{` becomes the `,` after the spliced fields: no view of the bytes after it is needed.
  else out.bytes(data).patchByte(data.length, 0x2c);
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
  return {
    event,
    iter: event.iter as number | undefined,
    timestamp: event.timestamp as number,
    seq: Number(id.slice(dash + 1)),
  };
}
