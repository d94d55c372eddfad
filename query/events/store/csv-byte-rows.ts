/**
 * The rows of InfluxDB's CSV answer to one SELECT (without GROUP BY)
 * followed by the completion statement, read as bytes piece by piece as the
 * answer arrives: pieces may split rows and cells anywhere, and a row is
 * handed on once its end has come, as the byte ranges of the cells its
 * reader asked for. Readers that work on bytes (scalar-csv-rows.ts,
 * raw-page-csv.ts) never decode the answer into a string.
 */
import type { Cells } from './csv-cell-pieces.js';

const NL = 10;
const CR = 13;
const QUOTE = 34;
const COMMA = 44;

/** A column no role is read from. */
export const OTHER = 0;

/** The statement run after the read (influx-csv.ts, COMPLETION_STATEMENT): its header and its row. */
const COMPLETION_HEADER = Buffer.from('name,tags,name');
const COMPLETION_ROW = Buffer.from('measurements,');
const HEADER_START = Buffer.from('name,tags,');

export interface CsvRowReader {
  /**
   * The statement's header: per column, the role its cells are read as (OTHER for none). `pieceBytes`
   * is the size of the piece it came in, a first guess of the answer's size. Throws for columns it
   * cannot read.
   */
  header(names: readonly string[], pieceBytes: number): Int32Array;
  /** A row: `cells` holds each role's cell as start and end in `bytes` (-1 for a role no column has). */
  row(bytes: Buffer, cells: Cells): void;
}

export class CsvByteRows {
  private readonly cells: Cells;
  private roleAt: Int32Array | undefined;
  private header: Buffer | undefined;
  private state: 'rows' | 'completion' | 'complete' = 'rows';
  /** The unfinished last line of the pieces so far. */
  private pending: Buffer | undefined;
  private rows = 0;

  constructor(
    roles: number,
    private readonly reader: CsvRowReader,
  ) {
    this.cells = new Int32Array(roles * 2);
  }

  push(piece: Uint8Array): void {
    let bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    if (this.pending !== undefined) {
      // Only the unfinished line is joined with the start of the piece, not the whole piece (a copy of
      // every byte of a large answer): rows end at a newline, and whatever that line leaves unfinished
      // (a quoted cell holding newlines) is joined with the rest.
      const newline = bytes.indexOf(NL);
      if (newline < 0) {
        this.pending = Buffer.concat([this.pending, bytes]);
        return;
      }
      this.parse(Buffer.concat([this.pending, bytes.subarray(0, newline + 1)]), false);
      bytes = bytes.subarray(newline + 1);
      if (this.pending !== undefined) bytes = Buffer.concat([this.pending, bytes]);
    }
    this.parse(bytes, false);
  }

  /**
   * The answer has ended: whether the completion statement's answer came after the rows (the
   * statement ran to its end). Throws on an answer that is not such CSV.
   */
  end(): boolean {
    if (this.pending !== undefined) {
      try {
        this.parse(this.pending, true);
      } catch (error) {
        // An answer cut inside a header or a quoted cell: it is not whole, whatever its last line is.
        if (this.state === 'complete') throw error;
        return false;
      }
    }
    return this.state === 'complete';
  }

  private parse(answer: Buffer, final: boolean): void {
    this.pending = undefined;
    const { cells, reader } = this;
    const n = answer.length;
    let i = 0;
    while (i < n) {
      // A piece may end inside `name,tags,`: whether the line is a header is known with the next.
      if (!final && n - i < HEADER_START.length && startsWith(HEADER_START, 0, n - i, answer.subarray(i)))
        return this.keep(answer, i);
      if (this.state !== 'rows' || answer[i] === NL || answer[i] === CR || startsWith(answer, i, n, HEADER_START)) {
        let lineEnd = answer.indexOf(NL, i);
        if (lineEnd < 0) {
          if (!final) return this.keep(answer, i);
          lineEnd = n;
        }
        this.line(answer, i, lineEnd > i && answer[lineEnd - 1] === CR ? lineEnd - 1 : lineEnd);
        i = lineEnd + 1;
        continue;
      }
      const roleAt = this.roleAt;
      if (roleAt === undefined) throw new Error('InfluxDB CSV answer has rows before its header');
      cells.fill(-1);
      // The row's end first (native); then cell by cell, a loop to the next comma being cheaper than a
      // native indexOf a cell. A quoted cell ends at a quote not followed by another, and may hold
      // newlines: the row then ends at the first newline after it.
      let rowEnd = answer.indexOf(NL, i);
      if (rowEnd < 0) {
        if (!final) return this.keep(answer, i);
        rowEnd = n;
      }
      let at = i;
      for (let column = 0; ; column++) {
        let end = at;
        if (answer[at] === QUOTE) {
          end++;
          for (;;) {
            while (end < n && answer[end] !== QUOTE) end++;
            if (end >= n) break;
            end++;
            if (answer[end] !== QUOTE) break;
            end++;
          }
          if (end >= n && !final) return this.keep(answer, i);
          if (answer[end - 1] !== QUOTE || end - at < 2)
            throw new Error(`InfluxDB CSV answer has an unterminated quoted cell in row ${this.rows + 1}`);
          if (end > rowEnd) {
            rowEnd = answer.indexOf(NL, end);
            if (rowEnd < 0) {
              if (!final) return this.keep(answer, i);
              rowEnd = n;
            }
          }
        } else while (end < rowEnd && answer[end] !== COMMA) end++;
        const next = end;
        if (end > at && end === rowEnd && answer[end - 1] === CR) end--;
        const role = column < roleAt.length ? roleAt[column]! : OTHER;
        if (role !== OTHER) {
          cells[role * 2] = at;
          cells[role * 2 + 1] = end;
        }
        if (next < rowEnd && answer[next] === COMMA) {
          at = next + 1;
          continue;
        }
        break;
      }
      reader.row(answer, cells);
      this.rows++;
      i = rowEnd + 1;
    }
  }

  /** A line other than a row: a header, the separator between statements, the completion statement's answer. */
  private line(answer: Buffer, start: number, end: number): void {
    if (end === start) return;
    if (this.state === 'completion') {
      if (startsWith(answer, start, end, COMPLETION_ROW)) this.state = 'complete';
      return;
    }
    if (this.state !== 'rows' || (this.header !== undefined && equals(answer, start, end, this.header))) return;
    if (equals(answer, start, end, COMPLETION_HEADER)) this.state = 'completion';
    else if (this.header !== undefined) throw new Error('InfluxDB CSV answer changed its columns');
    else {
      this.header = Buffer.from(answer.subarray(start, end));
      this.roleAt = this.reader.header(this.header.toString('latin1').split(','), answer.length);
    }
  }

  private keep(answer: Buffer, from: number): void {
    this.pending = Buffer.from(answer.subarray(from));
  }
}

function startsWith(bytes: Buffer, start: number, end: number, prefix: Buffer): boolean {
  if (end - start < prefix.length) return false;
  for (let k = 0; k < prefix.length; k++) if (bytes[start + k] !== prefix[k]) return false;
  return true;
}

function equals(bytes: Buffer, start: number, end: number, other: Buffer): boolean {
  return end - start === other.length && startsWith(bytes, start, end, other);
}
