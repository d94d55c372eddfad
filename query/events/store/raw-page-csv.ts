/**
 * A page of scalar_metrics_iter_raw by iteration (SELECT "y", "ts", "q",
 * "v" ... ORDER BY time) read from InfluxDB's CSV answer as bytes: x (the
 * time) as numbers, the variant decoded once per distinct cell, and y kept
 * as JSON text per variant (JsonNumberLists), copied into the answer. A page
 * of 200,000 points spent ~40 ms reading its y values with Number() and as
 * much writing them again with JSON.stringify (full-precision doubles, ~190
 * ns each way), and ~10 ms decoding the answer into a string
 * (docs/performance.md, "The raw page as bytes").
 */
import { decodeTagValue } from '../../../shared/events/storage-layout.js';
import type { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { cellText, PieceCache, type Cells } from './csv-cell-pieces.js';
import { CsvByteRows, OTHER, type CsvRowReader } from './csv-byte-rows.js';
import { copiesAsIs, jsonNumber, numberOf } from './csv-number-text.js';

const TIME = 1;
const VALUE = 2;
const TIMESTAMP = 3;
const SEQ = 4;
const VARIANT = 5;
const ROLES = 6;
const ROLE_OF: Record<string, number> = { time: TIME, y: VALUE, ts: TIMESTAMP, q: SEQ, v: VARIANT };

/**
 * Number cells of CSV answers kept as bytes and known by a reference (a number), read as numbers
 * only when asked: the timestamps and arrivals of a page's rows, which only order the few variants
 * whose first points share an x.
 */
export class CsvNumberCells {
  private readonly buffers: Buffer[] = [];
  /** Per reference: its buffer's index, start and end. */
  private places: Int32Array = new Int32Array(3 * 1024);
  private count = 0;

  /** The cell at [start, end) of `bytes` (a buffer that is not changed afterwards); its reference. */
  add(bytes: Buffer, start: number, end: number): number {
    if (this.buffers[this.buffers.length - 1] !== bytes) this.buffers.push(bytes);
    const ref = this.count++;
    if (ref * 3 + 3 > this.places.length) this.places = grown(this.places);
    this.places[ref * 3] = this.buffers.length - 1;
    this.places[ref * 3 + 1] = start;
    this.places[ref * 3 + 2] = end;
    return ref;
  }

  /** The value, as the JSON answer of the same cell would hold it (null for an empty cell). */
  value(ref: number): number | null {
    return numberOf(this.buffers[this.places[ref * 3]!]!, this.places[ref * 3 + 1]!, this.places[ref * 3 + 2]!);
  }
}

/**
 * Numbers of CSV cells as the text JSON.stringify writes for them, made as the cells are read (their
 * own bytes where they are that text, csv-number-text.ts) and kept per list (a page's variant), each
 * after a comma, so that a list's values, written in the order they were read, are copied in a few
 * spans. Written from the answer's bytes at the end instead, a page of 200,000 points read them back
 * from all over its 12 MB: 50 ms of cache misses against ~10 for JSON.stringify of numbers.
 */
export class JsonNumberLists {
  private readonly lists = new Map<string, number>();
  private readonly texts: Buffer[] = [];
  private readonly ends: number[] = [];
  /** Per reference: its list, and where its text starts and ends there. */
  private places: Int32Array = new Int32Array(3 * 1024);
  private count = 0;

  /** The list of that name (a variant). */
  listOf(name: string): number {
    let list = this.lists.get(name);
    if (list === undefined) {
      this.lists.set(name, (list = this.texts.length));
      // Small at first: a metric may have thousands of variants, each with a few points on the page.
      this.texts.push(Buffer.allocUnsafe(64));
      this.ends.push(0);
    }
    return list;
  }

  /** The number cell at [start, end) of `bytes`, appended to `list`; its reference. */
  add(list: number, bytes: Buffer, start: number, end: number): number {
    const json =
      start === end
        ? NULL
        : copiesAsIs(bytes, start, end)
          ? undefined
          : Buffer.from(jsonNumber(bytes.toString('latin1', start, end)), 'latin1');
    const from = json === undefined ? start : 0;
    const to = json === undefined ? end : json.length;
    const source = json ?? bytes;
    let text = this.texts[list]!;
    const at = this.ends[list]!;
    const needed = at + (to - from) + 1;
    if (needed > text.length) {
      const wider = Buffer.allocUnsafe(Math.max(text.length * 2, needed));
      text.copy(wider, 0, 0, at);
      this.texts[list] = text = wider;
    }
    text[at] = COMMA;
    let write = at + 1;
    for (let k = from; k < to; k++) text[write++] = source[k]!;
    this.ends[list] = write;
    const ref = this.count++;
    if (ref * 3 + 3 > this.places.length) this.places = grown(this.places);
    this.places[ref * 3] = list;
    this.places[ref * 3 + 1] = at + 1;
    this.places[ref * 3 + 2] = write;
    return ref;
  }

  /** The values of `refs`, comma-separated; references of one list in the order they were added copy as one span. */
  write(out: JsonBytesWriter, refs: ArrayLike<number>): void {
    const places = this.places;
    let list = -1;
    let from = 0;
    let to = 0;
    for (let i = 0; i < refs.length; i++) {
      const at = (refs[i]! * 3) | 0;
      const start = places[at + 1]!;
      if (places[at] === list && start === to + 1) {
        to = places[at + 2]!;
        continue;
      }
      if (list >= 0) out.bytes(this.texts[list]!, from, to).ascii(',');
      list = places[at]!;
      from = start;
      to = places[at + 2]!;
    }
    if (list >= 0) out.bytes(this.texts[list]!, from, to);
  }
}

const COMMA = 44;
const NULL = Buffer.from('null');

/** A typed array twice as long, holding `from` at its start. */
function grown<A extends Int32Array | Float64Array>(from: A): A {
  const wider = new (from.constructor as new (length: number) => A)(from.length * 2);
  wider.set(from);
  return wider;
}

/** A page's rows as columns: `y` holds references into the page's JsonNumberLists. */
export interface RawPageColumns {
  readonly length: number;
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly variant: string[];
  /** The row's timestamp and arrival, read from its cells when asked. */
  arrival(row: number): { ts: number; seq: number };
}

export interface RawPageCsv {
  rows: RawPageColumns;
  /** The answer of the completion statement came after the rows: InfluxDB did not cut the answer. */
  complete: boolean;
}

/** Reads the answer piece by piece as it arrives (csv-byte-rows.ts); throws on one that is not such CSV. */
export class RawPageCsvParser implements CsvRowReader {
  private readonly scan = new CsvByteRows(ROLES, this);
  private length = 0;
  private x = new Float64Array(1024);
  private y = new Float64Array(1024);
  /** Each row's ts and q cells, in row order: row r's are references 2r and 2r + 1. */
  private readonly arrivals = new CsvNumberCells();
  private readonly variant: string[] = [];
  private readonly variants: PieceCache<{ name: string; list: number }>;

  constructor(private readonly values: JsonNumberLists) {
    this.variants = new PieceCache([VARIANT], (bytes, cells) => {
      const name = decodeTagValue(cellText(bytes, cells, VARIANT) ?? '');
      return { name, list: values.listOf(name) };
    });
  }

  push(piece: Uint8Array): void {
    this.scan.push(piece);
  }

  end(): RawPageCsv {
    const complete = this.scan.end();
    const { length, arrivals } = this;
    return {
      complete,
      rows: {
        length,
        x: this.x.subarray(0, length),
        y: this.y.subarray(0, length),
        variant: this.variant,
        arrival(row) {
          if (row < 0 || row >= length) throw new RangeError(`no row ${row} in a page of ${length} rows`);
          return { ts: arrivals.value(row * 2) ?? 0, seq: arrivals.value(row * 2 + 1) ?? 0 };
        },
      },
    };
  }

  header(names: readonly string[]): Int32Array {
    const roles = new Int32Array(names.length);
    names.forEach((name, column) => {
      if (column >= 2) roles[column] = ROLE_OF[name] ?? OTHER;
    });
    for (const role of [TIME, VALUE, TIMESTAMP, SEQ, VARIANT])
      if (!roles.includes(role))
        throw new Error(`InfluxDB CSV answer lacks a column of the raw page: ${names.join(',')}`);
    return roles;
  }

  row(bytes: Buffer, cells: Cells): void {
    const row = this.length++;
    if (row === this.x.length) {
      this.x = grown(this.x);
      this.y = grown(this.y);
    }
    const variant = this.variants.of(bytes, cells);
    this.variant.push(variant.name);
    this.x[row] = numberOf(bytes, cells[TIME * 2]!, cells[TIME * 2 + 1]!) ?? 0;
    this.y[row] = this.values.add(variant.list, bytes, cells[VALUE * 2]!, cells[VALUE * 2 + 1]!);
    this.arrivals.add(bytes, cells[TIMESTAMP * 2]!, cells[TIMESTAMP * 2 + 1]!);
    this.arrivals.add(bytes, cells[SEQ * 2]!, cells[SEQ * 2 + 1]!);
  }
}
