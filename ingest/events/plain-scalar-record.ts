/**
 * The record of a plain scalar line (plain-scalar-line.ts), written
 * straight into a message buffer from the line's bytes: as a J record, what
 * EventEncoder.compactPoint makes of the same event (`J<length>:` then
 * `scalar,m=..,n=..,v=.. y=<value>,ts=<timestamp>i <iteration>`), without
 * the string; or as a K record naming its series head by number
 * (`K<length>:<number> <value>,ts=<timestamp>i <iteration>`), which the
 * sink defines once a message in an H record (wire-format.ts, version 3).
 * The series' head is encoded once per series
 * (EventEncoder.compactScalarHead); the numbers' texts are the line's own,
 * which plain-scalar-line.ts checked are the ones String() would print, or,
 * for a plain StreamEvents event, those plain-scalar-event.ts printed.
 */
import { ByteLiteral } from './byte-literal.js';
import type { PlainScalarLine } from './plain-scalar-line.js';
import type { AsciiRecord } from './record-sink.js';

const J = 0x4a;
const K = 0x4b;
const H = 0x48;
const COLON = 0x3a;
const SPACE = 0x20;
const ZERO = 0x30;
const TIMESTAMP_FIELD = Buffer.from(',ts=', 'latin1');
const TIME_SEPARATOR = Buffer.from('i ', 'latin1');

function copy(from: Uint8Array, start: number, end: number, to: Buffer, at: number): number {
  for (let i = start; i < end; i++) to[at++] = from[i]!;
  return at;
}

const EMPTY_HEAD = new ByteLiteral('');

function decimalDigits(n: number): number {
  let digits = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    digits++;
  }
  return digits;
}

export class PlainScalarRecord implements AsciiRecord {
  /** The J record's length: room is counted for it (its H and K records take less). */
  length = 0;
  /** The series head the record's K form names. */
  head: ByteLiteral = EMPTY_HEAD;
  /** The body after the head, the same in both forms. */
  private restLength = 0;
  private bytes: Buffer = Buffer.alloc(0);
  private line: PlainScalarLine | undefined;

  /** The record of `line` (its number texts in `bytes`) in the series whose head is `head`. */
  set(bytes: Buffer, line: PlainScalarLine, head: ByteLiteral): void {
    this.bytes = bytes;
    this.line = line;
    this.head = head;
    const value = line.valueText === undefined ? line.valueEnd - line.valueStart : line.valueText.length;
    this.restLength =
      value +
      TIMESTAMP_FIELD.length +
      (line.timestampEnd - line.timestampStart) +
      TIME_SEPARATOR.length +
      (line.iterEnd - line.iterStart);
    const bodyLength = head.bytes.length + this.restLength;
    this.length = 2 + decimalDigits(bodyLength) + bodyLength;
  }

  /** The J record: `J<length>:<head><rest>`. */
  writeInto(to: Buffer, at: number): number {
    const start = at;
    at = writeFrame(J, this.head.bytes.length + this.restLength, to, at);
    to.set(this.head.bytes, at);
    return this.writeRest(to, at + this.head.bytes.length) - start;
  }

  writeHeadInto(to: Buffer, at: number): number {
    const start = at;
    at = writeFrame(H, this.head.bytes.length, to, at);
    to.set(this.head.bytes, at);
    return at + this.head.bytes.length - start;
  }

  /** The K record naming head `headNumber` of its message: `K<length>:<number> <rest>`. */
  writeCompactInto(to: Buffer, at: number, headNumber: number): number {
    const start = at;
    const digits = decimalDigits(headNumber);
    at = writeFrame(K, digits + 1 + this.restLength, to, at);
    writeDecimal(headNumber, digits, to, at);
    to[at + digits] = SPACE;
    return this.writeRest(to, at + digits + 1) - start;
  }

  text(): string {
    const bytes = Buffer.allocUnsafe(this.length);
    this.writeInto(bytes, 0);
    return bytes.toString('latin1');
  }

  /** The value, its timestamp field and the iteration: the line's own texts. */
  private writeRest(to: Buffer, at: number): number {
    const { bytes } = this;
    const line = this.line!;
    const text = line.valueText;
    if (text === undefined) at = copy(bytes, line.valueStart, line.valueEnd, to, at);
    else for (let i = 0; i < text.length; i++) to[at++] = text.charCodeAt(i);
    at = copy(TIMESTAMP_FIELD, 0, TIMESTAMP_FIELD.length, to, at);
    at = copy(bytes, line.timestampStart, line.timestampEnd, to, at);
    at = copy(TIME_SEPARATOR, 0, TIME_SEPARATOR.length, to, at);
    return copy(bytes, line.iterStart, line.iterEnd, to, at);
  }
}

/** `<kind><bodyLength>:` at `at`; answers where the body starts. */
function writeFrame(kind: number, bodyLength: number, to: Buffer, at: number): number {
  const digits = decimalDigits(bodyLength);
  to[at] = kind;
  writeDecimal(bodyLength, digits, to, at + 1);
  to[at + 1 + digits] = COLON;
  return at + 2 + digits;
}

/** `n` in `digits` decimal digits at `at`, from the last. */
function writeDecimal(n: number, digits: number, to: Buffer, at: number): void {
  for (let i = at + digits - 1; i >= at; i--) {
    to[i] = ZERO + (n % 10);
    n = Math.floor(n / 10);
  }
}
