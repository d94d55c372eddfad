/**
 * Scalar rows (SELECT * FROM "scalar") read from InfluxDB's CSV answer as
 * bytes and written straight into one buffer as the JSON text of their
 * stored events: the text JSON.stringify writes for the object
 * InfluxRowReader.event builds from the same row of the JSON answer (same
 * members, same order), without parsing the answer into values, building
 * strings, or formatting numbers. For get_task_events' pages of scalars:
 * per 1,010 rows, JSON.parse of InfluxDB's JSON answer, the row texts and
 * the answer's bytes took 3.4-5.5 ms, this 1.7-2.9 ms (micro-benchmark,
 * alternating), and InfluxDB writes the CSV answer faster than the JSON one
 * (docs/performance.md, "Scalar pages from CSV bytes").
 *
 * InfluxDB writes CSV numbers as Go's strconv does: integers (time, ts, at,
 * q) in full, floats (y) in shortest plain decimals ('f', -1). Those texts are
 * what JSON.stringify writes for the same double whenever the double is
 * exact (integers of at most 15 digits) or needs no exponent (1e-6 <= |y| <
 * 1e21); the others are read with Number() and written as JSON.stringify
 * would. Tags and the worker are decoded and written as JSON once per
 * distinct cell. An empty worker cell is the empty worker: the writer
 * stores `w` on every point, and CSV cannot tell an empty string from none.
 */
import { decodeTagValue, EVENT_TYPE_OF, iterFromTime } from '../../../shared/events/storage-layout.js';
import type { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { epochMsToIso } from '../common/iso-time.js';
import { cellText, PieceCache, type Cells } from './csv-cell-pieces.js';
import { copiesAsIs, jsonNumber, numberOf } from './csv-number-text.js';
import { CsvByteRows, OTHER, type CsvRowReader } from './csv-byte-rows.js';
import type { SequencedEvent, StoredEvent } from './stored-events.js';

/** What a column is to the event; the other columns (the company tag, unknown ones) are skipped. */
const TIME = 1;
const AT = 2;
const ENTITY = 3;
const METRIC = 4;
const NAMESPACE = 5;
const SEQ = 6;
const TIMESTAMP = 7;
const VARIANT = 8;
const WORKER = 9;
const VALUE = 10;
const ROLE_OF: Record<string, number> = {
  time: TIME,
  at: AT,
  e: ENTITY,
  m: METRIC,
  n: NAMESPACE,
  q: SEQ,
  ts: TIMESTAMP,
  v: VARIANT,
  w: WORKER,
  y: VALUE,
};
const ROLES = 11;

const ascii = (text: string) => Buffer.from(text, 'latin1');
const HEAD = `,{"type":${JSON.stringify(EVENT_TYPE_OF.scalar)},"task":`;
const ITER_MEMBER = ascii(',"iter":');
const VALUE_MEMBER = ascii(',"value":');
const NULL = ascii('null');
const CLOSE = ascii('}');

class ScalarCsvRow implements SequencedEvent {
  constructor(
    private readonly text: Buffer,
    /** The `,` written before the event's `{`: the event alone starts one byte later. */
    private readonly start: number,
    private readonly end: number,
    readonly iter: number | undefined,
    readonly timestamp: number,
    readonly seq: number,
  ) {}

  writeJson(out: JsonBytesWriter, afterAnother: boolean): void {
    out.span(this.text, afterAnother ? this.start : this.start + 1, this.end);
  }

  /** Only when asked (an answer made of the rows never does): the object its text stands for. */
  get event(): StoredEvent {
    return JSON.parse(this.text.toString('utf8', this.start + 1, this.end)) as StoredEvent;
  }
}

export interface ScalarCsvAnswer {
  rows: SequencedEvent[];
  /** The answer of the completion statement came after the rows: InfluxDB did not cut the answer. */
  complete: boolean;
}

/**
 * Reads a CSV answer of SELECT * FROM "scalar" (without GROUP BY) followed by the completion
 * statement piece by piece as it arrives (pieces may split rows and cells anywhere; a row is read
 * once its end has come), and writes each row's event. Parsing as the answer arrives overlaps the
 * parse with the transfer: InfluxDB's ~100 KB answer of a page of 1,000 scalars comes in 10-14
 * pieces over 2-4 ms. Throws on an answer that is not such CSV.
 */
export class ScalarCsvParser implements CsvRowReader {
  private readonly rows: SequencedEvent[] = [];
  private readonly scan = new CsvByteRows(ROLES, this);
  private writer: ScalarJsonWriter | undefined;

  push(piece: Uint8Array): void {
    this.scan.push(piece);
  }

  /** The answer has ended. */
  end(): ScalarCsvAnswer {
    return { rows: this.rows, complete: this.scan.end() };
  }

  header(names: readonly string[], pieceBytes: number): Int32Array {
    const roles = rolesOf(names);
    this.writer = new ScalarJsonWriter(Math.max(64 * 1024, pieceBytes * 3), roles);
    return roles;
  }

  row(bytes: Buffer, cells: Cells): void {
    this.rows.push(this.writer!.row(bytes, cells));
  }
}

/** A whole answer (scalar-csv-rows.test.ts; reads use ScalarCsvParser as the answer arrives). */
export function scalarCsvRows(answer: Uint8Array): ScalarCsvAnswer {
  const parser = new ScalarCsvParser();
  parser.push(answer);
  return parser.end();
}

function rolesOf(names: readonly string[]): Int32Array {
  if (names[2] !== 'time') throw new Error(`InfluxDB CSV answer without time third: ${names.join(',')}`);
  const roles = new Int32Array(names.length);
  names.forEach((name, column) => {
    if (column >= 2) roles[column] = ROLE_OF[name] ?? OTHER;
  });
  if (!roles.includes(AT)) throw new Error('InfluxDB CSV answer of scalars without `at`');
  return roles;
}

const tagJson = (bytes: Buffer, cells: Cells, role: number) =>
  JSON.stringify(decodeTagValue(cellText(bytes, cells, role) ?? ''));

/** Writes the events' JSON texts one after the other, each after a `,`. */
class ScalarJsonWriter {
  private out: Buffer;
  private end = 0;
  /** `,{"type":...,"task":...` and, when the answer has the column, `,"timestamp":`. */
  private readonly heads: PieceCache<Buffer>;
  /** From `,"metric":` to `,"@timestamp":`. */
  private readonly series: PieceCache<Buffer>;
  private readonly isoJson = new Map<number, Buffer>();
  private readonly numbers = new Map<string, Buffer>();

  constructor(bytes: number, roles: Int32Array) {
    this.out = Buffer.allocUnsafe(bytes);
    const timestampMember = roles.includes(TIMESTAMP) ? ',"timestamp":' : '';
    this.heads = new PieceCache([ENTITY], (answer, cells) =>
      Buffer.from(`${HEAD}${tagJson(answer, cells, ENTITY)}${timestampMember}`),
    );
    this.series = new PieceCache([METRIC, VARIANT, WORKER, NAMESPACE], (answer, cells) => {
      // An empty worker cell is the empty worker (the module's comment).
      const worker = cellText(answer, cells, WORKER);
      return Buffer.from(
        `,"metric":${tagJson(answer, cells, METRIC)},"variant":${tagJson(answer, cells, VARIANT)}` +
          `${worker === undefined ? '' : `,"worker":${JSON.stringify(worker)}`}` +
          `,"model_event":${cellText(answer, cells, NAMESPACE) === 'm'},"@timestamp":`,
      );
    });
  }

  row(answer: Buffer, cells: Cells): ScalarCsvRow {
    const start = this.end;
    this.put(this.heads.of(answer, cells));
    const timestampStart = cells[TIMESTAMP * 2]!;
    const timestampEnd = cells[TIMESTAMP * 2 + 1]!;
    if (timestampStart >= 0) this.number(answer, timestampStart, timestampEnd);
    this.put(this.series.of(answer, cells));
    this.put(this.iso(numberOf(answer, cells[AT * 2]!, cells[AT * 2 + 1]!)));
    const timeStart = cells[TIME * 2]!;
    const timeEnd = cells[TIME * 2 + 1]!;
    const iter = iterFromTime(numberOf(answer, timeStart, timeEnd) as number);
    if (iter !== undefined) {
      this.put(ITER_MEMBER);
      this.number(answer, timeStart, timeEnd);
    }
    if (cells[VALUE * 2]! >= 0) {
      this.put(VALUE_MEMBER);
      this.number(answer, cells[VALUE * 2]!, cells[VALUE * 2 + 1]!);
    }
    this.put(CLOSE);
    const seqStart = cells[SEQ * 2]!;
    const seq = seqStart >= 0 ? (numberOf(answer, seqStart, cells[SEQ * 2 + 1]!) ?? 0) : 0;
    const timestamp = timestampStart >= 0 ? numberOf(answer, timestampStart, timestampEnd) : undefined;
    return new ScalarCsvRow(this.out, start, this.end, iter, timestamp as number, seq);
  }

  /** A number cell: its own bytes where they are JSON.stringify's text, else that text. */
  private number(answer: Buffer, from: number, to: number): void {
    if (from === to) return this.put(NULL);
    if (copiesAsIs(answer, from, to)) return this.copy(answer, from, to);
    const text = answer.toString('latin1', from, to);
    let json = this.numbers.get(text);
    if (json === undefined) {
      if (this.numbers.size >= 64) this.numbers.clear();
      this.numbers.set(text, (json = Buffer.from(jsonNumber(text), 'latin1')));
    }
    this.put(json);
  }

  private iso(at: number | null): Buffer {
    const key = at ?? Number.NaN;
    let json = this.isoJson.get(key);
    if (json === undefined) {
      if (this.isoJson.size >= 256) this.isoJson.clear();
      // As InfluxRowReader.event: an empty cell is null, which Date reads as 0.
      json = Buffer.from(JSON.stringify(epochMsToIso(at as number)), 'latin1');
      this.isoJson.set(key, json);
    }
    return json;
  }

  private put(piece: Buffer): void {
    this.copy(piece, 0, piece.length);
  }

  /** Short pieces byte by byte: a native copy costs more than the loop below ~64 bytes. */
  private copy(from: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.end + length > this.out.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.out.length * 2, this.end + length));
      this.out.copy(grown, 0, 0, this.end);
      this.out = grown;
    }
    const out = this.out;
    if (length > 64) {
      from.copy(out, this.end, start, end);
      this.end += length;
      return;
    }
    let at = this.end;
    for (let k = start; k < end; k++) out[at++] = from[k]!;
    this.end = at;
  }
}
