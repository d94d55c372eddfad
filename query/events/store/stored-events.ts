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
  /**
   * Writes the event's JSON text (what JSON.stringify(event) writes), after a `,` when
   * `afterAnother`; present where that text was written from the stored row directly
   * (scalar-csv-rows.ts): answers made of it skip building and serialising the object.
   */
  writeJson?(out: JsonBytesWriter, afterAnother: boolean): void;
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
export function boundedMemo<K, V>(f: (key: K) => V): (key: K) => V {
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

/**
 * Reads the rows of one series of SELECT * FROM <measurement>: tags and
 * fields by name, tags decoded and arrival times formatted once per answer
 * (a request's events share them, and rows repeat them).
 */
export class InfluxRowReader {
  private readonly col: Record<string, number | undefined>;
  readonly decodeTag = boundedMemo(decodeTagValue);
  readonly isoOf = boundedMemo(epochMsToIso);

  constructor(
    private readonly series: InfluxSeries,
    readonly measurement: Measurement = series.name as Measurement,
  ) {
    this.col = Object.fromEntries(series.columns.map((name, i) => [name, i]));
  }

  tag(row: unknown[], name: string): string | undefined {
    const at = this.col[name];
    const value = (at === undefined ? undefined : (row[at] as string | null)) ?? this.series.tags?.[name];
    return value === null || value === undefined ? undefined : value;
  }

  /** A field's value; undefined when the answer has no such column (null when this row has none). */
  field(row: unknown[], name: string): unknown {
    const at = this.col[name];
    return at === undefined ? undefined : row[at];
  }

  iter(row: unknown[]): number | undefined {
    return iterFromTime(row[this.col.time!] as number);
  }

  /** The row as the stored event of events.md §1.4. */
  event(row: unknown[]): StoredEvent {
    const { measurement, decodeTag } = this;
    const iter = this.iter(row);
    const event: StoredEvent = {
      type: EVENT_TYPE_OF[measurement],
      task: decodeTag(this.tag(row, 'e') ?? ''),
      timestamp: this.field(row, 'ts'),
      metric: decodeTag(this.tag(row, 'm') ?? ''),
      variant: decodeTag(this.tag(row, 'v') ?? ''),
      worker: this.field(row, 'w'),
      model_event: this.tag(row, 'n') === 'm',
      '@timestamp': this.isoOf(this.field(row, 'at') as number),
    };
    if (iter !== undefined) event.iter = iter;
    switch (measurement) {
      case 'scalar':
        event.value = this.field(row, 'y');
        break;
      case 'vector':
        event.value = JSON.parse(this.field(row, 'y') as string);
        break;
      case 'image': {
        const url = this.field(row, 'u');
        const key = this.tag(row, 'k');
        if (url !== null && url !== undefined) event.url = url;
        if (key !== undefined) event.key = decodeTagValue(key);
        break;
      }
      case 'plot': {
        event.plot_str = decodePlotString((this.field(row, 'p') as string) ?? 'p');
        event.plot_len = this.field(row, 'len');
        const src = this.field(row, 'src');
        if (typeof src === 'string' && src !== '') event.source_urls = JSON.parse(src);
        const valid = this.field(row, 'valid');
        if (typeof valid === 'boolean') event.valid_plot = valid;
        break;
      }
    }
    return event;
  }

  /** The row's place in an order: iteration, timestamp, arrival. */
  sequenced(row: unknown[], event: StoredEvent): SequencedEvent {
    return {
      event,
      iter: event.iter as number | undefined,
      timestamp: event.timestamp as number,
      seq: (this.field(row, 'q') as number) ?? 0,
    };
  }
}

/** Decodes every row of a series of SELECT * FROM <measurement>. */
export function decodeInfluxRows(
  series: InfluxSeries,
  measurement: Measurement = series.name as Measurement,
): SequencedEvent[] {
  const reader = new InfluxRowReader(series, measurement);
  return series.values.map((row) => reader.sequenced(row, reader.event(row)));
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
