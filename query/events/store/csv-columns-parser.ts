/**
 * InfluxDB's CSV answers read into columns, whole or piece by piece as a
 * streamed answer arrives (influx-csv.ts asks for them). For statements
 * over one measurement without GROUP BY, whose selected columns are numbers
 * or short strings (tags), so that a line is `<measurement>,,<time>,<cell>...`;
 * a cell holding `,` `"` or a newline comes quoted, as Go's encoding/csv
 * writes it. Reading the cells here costs about half of JSON.parse of the
 * same rows (200k rows of time, y, ts, q, v: ~75 ms against 130-215 ms).
 */

import { StringDecoder } from 'node:string_decoder';

export interface CsvColumns {
  numbers: Float64Array[];
  strings: string[][];
}

/** Parses InfluxDB's CSV answer into the named number columns; exported for its unit test. */
export function parseNumericCsv(text: string, columns: readonly string[]): Float64Array[] {
  return parseCsvColumns(text, columns).numbers;
}

/**
 * Recent values of a string column, in a small direct-mapped table keyed by length and last
 * character: tags repeat over thousands of rows, and a hit costs one comparison instead of a new string.
 */
const INTERN_SLOTS = 64;

/** Parses a whole CSV answer into the named number and string columns; exported for its unit test. */
export function parseCsvColumns(text: string, numbers: readonly string[], strings: readonly string[] = []): CsvColumns {
  const parser = new CsvColumnsParser(numbers, strings);
  parser.push(text);
  return parser.end();
}

/**
 * The statement sent after every streamed CSV read: InfluxDB runs a query's statements in order and
 * stops at the first failure, and a streamed (chunked) CSV answer cut by a failure (a query timeout,
 * a killed query, a shutdown) simply ends, with no error in it. Its one row at the end of the answer
 * is what tells a whole answer from a cut one. It reads the index only.
 */
export const COMPLETION_STATEMENT = 'SHOW MEASUREMENTS LIMIT 1';
/** The header of COMPLETION_STATEMENT's answer; a SELECT's header always has `time` third. */
const COMPLETION_HEADER = 'name,tags,name';
const COMPLETION_ROW = 'measurements,';
const HEADER_START = 'name,tags,';

/**
 * Reads InfluxDB's CSV answer piece by piece as it arrives, so that a read of hundreds of thousands of
 * points is parsed while InfluxDB is still writing it: the pieces may split rows and cells anywhere, a
 * row is read once its end has come. Also reads the answer of COMPLETION_STATEMENT after the
 * statement's rows (`complete`).
 */
export class CsvColumnsParser {
  private header: string | undefined;
  /** Per header position: >= 0 a number column's index, <= -2 a string column's (-2 - index), -1 unread. */
  private wanted = new Int32Array(0);
  private pending = '';
  private rows = 0;
  private numberOut: Float64Array[];
  private readonly stringOut: string[][];
  private readonly interned: Array<Array<string | undefined>>;
  private state: 'rows' | 'completion' | 'complete' = 'rows';
  /** For answers given as bytes (pushBytes): keeps a character cut between two pieces until its end comes. */
  private decoder: StringDecoder | undefined;

  constructor(
    private readonly numbers: readonly string[],
    private readonly strings: readonly string[] = [],
  ) {
    this.numberOut = numbers.map(() => new Float64Array(0));
    this.stringOut = strings.map(() => []);
    this.interned = strings.map(() => new Array<string | undefined>(INTERN_SLOTS));
  }

  /** Whether the answer of COMPLETION_STATEMENT came after the rows: the statement ran to its end. */
  get complete(): boolean {
    return this.state === 'complete';
  }

  get rowCount(): number {
    return this.rows;
  }

  /** The next piece of the answer. */
  push(text: string): void {
    this.parse(this.pending === '' ? text : this.pending + text, false);
  }

  /**
   * The next piece of the answer as bytes, which may end inside a character. Decoded by Node's
   * StringDecoder: TextDecoder's `stream` mode cost ~110 µs per 64 KiB against ~11 (Node 20); a
   * 1M-point histogram by timestamp cost 852-919 ms of CPU with it, 686-691 without
   * (docs/performance.md, "Decoding streamed CSV").
   */
  pushBytes(piece: Uint8Array): void {
    this.decoder ??= new StringDecoder('utf8');
    this.push(this.decoder.write(piece));
  }

  /** The answer has ended: reads what is left and returns the columns. */
  end(): CsvColumns {
    if (this.decoder !== undefined) this.pending += this.decoder.end();
    this.parse(this.pending, true);
    this.pending = '';
    const rows = this.rows;
    return {
      numbers: this.numberOut.map((column) => (column.length === rows ? column : column.subarray(0, rows))),
      strings: this.stringOut.map((column) => (column.length === rows ? column : column.slice(0, rows))),
    };
  }

  private useHeader(line: string): void {
    if (line === COMPLETION_HEADER) {
      this.state = 'completion';
      return;
    }
    const header = line.split(',');
    const positionOf = (name: string) => {
      const at = header.indexOf(name);
      if (at < 0) throw new Error(`InfluxDB CSV answer lacks column ${name} (has ${header.join(', ')})`);
      return at;
    };
    this.header = line;
    this.wanted = new Int32Array(header.length).fill(-1);
    this.numbers.forEach((name, c) => (this.wanted[positionOf(name)] = c));
    this.strings.forEach((name, c) => (this.wanted[positionOf(name)] = -2 - c));
  }

  /** Room for `more` rows beyond those read. */
  private reserve(more: number): void {
    const needed = this.rows + more;
    const capacity = this.numberOut[0]?.length ?? 0;
    if (needed <= capacity) return;
    const grown = Math.max(needed, capacity * 2, 1024);
    this.numberOut = this.numberOut.map((column) => {
      const wider = new Float64Array(grown);
      wider.set(column.subarray(0, this.rows));
      return wider;
    });
  }

  /**
   * Reads the whole rows of `text`; without `final`, keeps an unfinished last row for the next piece.
   * Cell by cell, delimiters found by indexOf (native) and integer cells (time, ts, q) read digit by
   * digit as they are scanned, without a substring: this parse is most of what a read of hundreds of
   * thousands of points costs beyond InfluxDB's own work (72 against 87 ms for a per-character loop
   * over 200k rows). Other numbers (y) go through Number().
   */
  private parse(text: string, final: boolean): void {
    const n = text.length;
    let i = 0;
    while (this.header === undefined && this.state === 'rows') {
      let lineEnd = text.indexOf('\n', i);
      if (lineEnd < 0) {
        if (!final) return this.keep(text, i);
        lineEnd = n;
      }
      const line = text.slice(i, lineEnd).replace(/\r$/, '');
      i = lineEnd + 1;
      if (line !== '') this.useHeader(line);
      else if (i >= n) return this.keep(text, n);
    }
    // Counted with indexOf (native): a charCodeAt loop over the text cost ~15% of the whole parse.
    let lines = 1;
    for (let at = text.indexOf('\n', i); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
    this.reserve(lines);
    const wanted = this.wanted;
    const numberOut = this.numberOut;
    const stringOut = this.stringOut;
    let row = this.rows;
    while (i < n) {
      let rowEnd = text.indexOf('\n', i);
      if (rowEnd < 0) {
        if (!final) break;
        rowEnd = n;
      }
      if (rowEnd === i || (rowEnd === i + 1 && text.charCodeAt(i) === 13)) {
        i = rowEnd + 1;
        continue; // an empty line: InfluxDB's separator between statements
      }
      if (this.state !== 'rows' || (text.charCodeAt(i) === 110 && text.startsWith(HEADER_START, i))) {
        // A header again, or the completion statement's answer.
        const line = text.slice(i, rowEnd).replace(/\r$/, '');
        if (this.state === 'completion') {
          if (line.startsWith(COMPLETION_ROW)) this.state = 'complete';
        } else if (this.state === 'rows' && line !== this.header) {
          if (line !== COMPLETION_HEADER) throw new Error(`InfluxDB CSV answer changed its columns to ${line}`);
          this.state = 'completion';
        }
        i = rowEnd + 1;
        continue;
      }
      const rowStart = i;
      let cut = false;
      for (let column = 0; ; column++) {
        const c = column < wanted.length ? wanted[column]! : -1;
        let cellEnd: number;
        if (text.charCodeAt(i) === 34) {
          // "..." with "" for a quote inside: ends at a quote not followed by another; may hold newlines.
          let close = text.indexOf('"', i + 1);
          while (close >= 0 && text.charCodeAt(close + 1) === 34) close = text.indexOf('"', close + 2);
          if (close < 0) {
            if (!final) {
              cut = true;
              break;
            }
            throw new Error(`InfluxDB CSV answer has an unterminated quoted cell in row ${row + 1}`);
          }
          if (c >= 0) numberOut[c]![row] = Number(text.slice(i + 1, close).replaceAll('""', '"'));
          else if (c <= -2) stringOut[-2 - c]![row] = cellText(text, i + 1, close, true, this.interned[-2 - c]!);
          cellEnd = close + 1;
          if (cellEnd > rowEnd) {
            rowEnd = text.indexOf('\n', cellEnd);
            if (rowEnd < 0) {
              if (!final) {
                cut = true;
                break;
              }
              rowEnd = n;
            }
          }
          if (text.charCodeAt(cellEnd) === 13) cellEnd++;
        } else {
          cellEnd = c >= 0 ? integerCellEnd(text, i) : -1;
          if (cellEnd >= 0) numberOut[c]![row] = integerCell(text, i, cellEnd);
          else {
            cellEnd = text.indexOf(',', i);
            if (cellEnd < 0 || cellEnd > rowEnd) cellEnd = rowEnd;
            const end =
              cellEnd === rowEnd && cellEnd > i && text.charCodeAt(cellEnd - 1) === 13 ? cellEnd - 1 : cellEnd;
            if (c >= 0) numberOut[c]![row] = Number(text.slice(i, end));
            else if (c <= -2) stringOut[-2 - c]![row] = cellText(text, i, end, false, this.interned[-2 - c]!);
          }
          if (text.charCodeAt(cellEnd) === 13 && cellEnd + 1 === rowEnd) cellEnd++;
        }
        i = cellEnd + 1;
        if (cellEnd >= rowEnd) break;
      }
      if (cut) {
        i = rowStart;
        break;
      }
      row++;
      if (row > this.rows + lines) throw new Error('InfluxDB CSV answer: more rows than lines');
    }
    this.rows = row;
    this.keep(text, i);
  }

  private keep(text: string, from: number): void {
    this.pending = from >= text.length ? '' : text.slice(from);
  }
}

function cellText(
  text: string,
  start: number,
  end: number,
  quoted: boolean,
  interned: Array<string | undefined>,
): string {
  const length = end - start;
  const slot = (length * 31 + (length > 0 ? text.charCodeAt(end - 1) : 0)) & (INTERN_SLOTS - 1);
  let raw = interned[slot];
  if (raw === undefined || raw.length !== length || !text.startsWith(raw, start))
    interned[slot] = raw = text.slice(start, end);
  return quoted ? raw.replaceAll('""', '"') : raw;
}

/**
 * Where an integer cell starting at `start` ends (at its `,`, `\r` or `\n`, or the text's end), or -1
 * when it is not a plain integer of at most 15 digits (exact in a double), which Number() then reads.
 */
function integerCellEnd(text: string, start: number): number {
  let i = text.charCodeAt(start) === 45 ? start + 1 : start;
  const digits = i;
  for (; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) break;
  }
  if (i === digits || i - digits > 15) return -1;
  const code = i < text.length ? text.charCodeAt(i) : 10;
  return code === 44 || code === 10 || code === 13 ? i : -1;
}

/** The integer in text[start, end), checked by integerCellEnd. */
function integerCell(text: string, start: number, end: number): number {
  const negative = text.charCodeAt(start) === 45;
  let value = 0;
  for (let i = negative ? start + 1 : start; i < end; i++) value = value * 10 + (text.charCodeAt(i) - 48);
  return negative ? -value : value;
}
