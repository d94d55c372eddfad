/**
 * The J record of a plain scalar line (plain-scalar-line.ts), written
 * straight into a message buffer from the line's bytes: what
 * EventEncoder.compactPoint makes of the same event (`J<length>:` then
 * `scalar,m=..,n=..,v=.. y=<value>,ts=<timestamp>i <iteration>`), without
 * the string. The series' head is encoded once per series
 * (EventEncoder.compactScalarHead); the numbers' texts are the line's own,
 * which plain-scalar-line.ts checked are the ones String() would print, or,
 * for a plain StreamEvents event, those plain-scalar-event.ts printed.
 */
import type { ByteLiteral } from './byte-literal.js';
import type { PlainScalarLine } from './plain-scalar-line.js';
import type { AsciiRecord } from './record-sink.js';

const J = 0x4a;
const COLON = 0x3a;
const ZERO = 0x30;
const TIMESTAMP_FIELD = Buffer.from(',ts=', 'latin1');
const TIME_SEPARATOR = Buffer.from('i ', 'latin1');

function copy(from: Uint8Array, start: number, end: number, to: Buffer, at: number): number {
  for (let i = start; i < end; i++) to[at++] = from[i]!;
  return at;
}

/** A view of the buffer last written to, for its four-byte writes (buffers change once a message). */
let view: DataView = new DataView(new ArrayBuffer(0));
let viewed: Buffer | undefined;

/** `head`'s bytes at `at` of `to`, four at a time: the longest part of a record. */
function copyHead(head: ByteLiteral, to: Buffer, at: number): number {
  if (to !== viewed) {
    view = new DataView(to.buffer, to.byteOffset, to.length);
    viewed = to;
  }
  const { words } = head;
  for (let i = 0; i < words.length; i++) view.setUint32(at + 4 * i, words[i]!, true);
  return copy(head.bytes, words.length * 4, head.bytes.length, to, at + words.length * 4);
}

function decimalDigits(n: number): number {
  let digits = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    digits++;
  }
  return digits;
}

export class PlainScalarRecord implements AsciiRecord {
  length = 0;
  private bodyLength = 0;
  private bytes: Buffer = Buffer.alloc(0);
  private line: PlainScalarLine | undefined;
  private head: ByteLiteral | undefined;

  /** The record of `line` (its number texts in `bytes`) in the series whose head is `head`. */
  set(bytes: Buffer, line: PlainScalarLine, head: ByteLiteral): void {
    this.bytes = bytes;
    this.line = line;
    this.head = head;
    const value = line.valueText === undefined ? line.valueEnd - line.valueStart : line.valueText.length;
    this.bodyLength =
      head.bytes.length +
      value +
      TIMESTAMP_FIELD.length +
      (line.timestampEnd - line.timestampStart) +
      TIME_SEPARATOR.length +
      (line.iterEnd - line.iterStart);
    this.length = 2 + decimalDigits(this.bodyLength) + this.bodyLength;
  }

  writeInto(to: Buffer, at: number): number {
    const { bytes } = this;
    const line = this.line!;
    const start = at;
    to[at] = J;
    // The body's length in decimal, its digits from the last.
    let n = this.bodyLength;
    at += decimalDigits(n);
    for (let i = at; i > start; i--) {
      to[i] = ZERO + (n % 10);
      n = Math.floor(n / 10);
    }
    to[++at] = COLON;
    at = copyHead(this.head!, to, at + 1);
    const text = line.valueText;
    if (text === undefined) at = copy(bytes, line.valueStart, line.valueEnd, to, at);
    else for (let i = 0; i < text.length; i++) to[at++] = text.charCodeAt(i);
    at = copy(TIMESTAMP_FIELD, 0, TIMESTAMP_FIELD.length, to, at);
    at = copy(bytes, line.timestampStart, line.timestampEnd, to, at);
    at = copy(TIME_SEPARATOR, 0, TIME_SEPARATOR.length, to, at);
    at = copy(bytes, line.iterStart, line.iterEnd, to, at);
    return at - start;
  }

  text(): string {
    const bytes = Buffer.allocUnsafe(this.length);
    this.writeInto(bytes, 0);
    return bytes.toString('latin1');
  }
}
