/**
 * The line-protocol body of one InfluxDB write, built in a reused byte
 * buffer: each point is copied from the message bytes with `,q=<seq>i`
 * spliced in before its time. No per-point strings or objects: the writer's
 * CPU went mostly to garbage collection when it built them. The short time
 * part is copied in a loop: Buffer#copy makes a Uint8Array view per call,
 * which costs more than copying a dozen bytes (0.21 -> 0.16 µs a point).
 */
import type { PointHeader } from './record-scanner.js';

const COMMA = 0x2c;
const COMMA_Q_EQ = [COMMA, 0x71, 0x3d];
const SPACE = 0x20;
const NEWLINE = 0x0a;
const LETTER_I = 0x69;

export class PointBuffer {
  private buf = Buffer.allocUnsafe(1 << 20);
  length = 0;
  points = 0;

  reset(): void {
    this.length = 0;
    this.points = 0;
  }

  /** Rolls back to an earlier length (a message that turned out to be malformed). */
  truncate(length: number, points: number): void {
    this.length = length;
    this.points = points;
  }

  bytes(start = 0, end = this.length): Buffer {
    return this.buf.subarray(start, end);
  }

  /**
   * Appends the point in src[start, end), or with `header` the point a J record stands for
   * (wire-format.ts): its measurement, the header's tags, the rest of the record up to its
   * time, the header's fields. With a head, src[headStart, headEnd), src[start, end) is a K
   * record's rest: the J record is the head, then the rest. false when it has no time (no
   * space) or, a J or K record, no tag: it is malformed.
   */
  append(
    src: Buffer,
    start: number,
    end: number,
    seq: number,
    header?: PointHeader,
    headStart = start,
    headEnd = start,
  ): boolean {
    const compact = headStart !== headEnd;
    let space = end - 1;
    while (space > start && src[space] !== SPACE) space--;
    // A K record's rest may start with its time's space (an empty value, as its J record would have).
    if (space < start || (compact ? src[space] !== SPACE : space === start)) return false;
    let at: number;
    if (header === undefined) {
      this.reserve(end - start + 24);
      at = this.length + src.copy(this.buf, this.length, start, space);
    } else {
      // The measurement ends at the first comma: a J record without a tag before its fields is malformed.
      const measurementStart = compact ? headStart : start;
      const measurementLimit = compact ? headEnd : space;
      let comma = measurementStart;
      while (comma < measurementLimit && src[comma] !== COMMA && src[comma] !== SPACE) comma++;
      if (comma === measurementLimit || src[comma] !== COMMA) return false;
      const { tagsStart, tagsEnd, fieldsStart, fieldsEnd } = header;
      this.reserve(end - start + headEnd - headStart + tagsEnd - tagsStart + fieldsEnd - fieldsStart + 24);
      // The short parts in loops written out here (a helper function per part measured slower),
      // the record's own middle by one copy.
      const buf = this.buf;
      at = this.length;
      for (let i = measurementStart; i < comma; i++) buf[at++] = src[i]!;
      for (let i = tagsStart; i < tagsEnd; i++) buf[at++] = src[i]!;
      if (compact) {
        at += src.copy(buf, at, comma, headEnd);
        at += src.copy(buf, at, start, space);
      } else at += src.copy(buf, at, comma, space);
      for (let i = fieldsStart; i < fieldsEnd; i++) buf[at++] = src[i]!;
    }
    const buf = this.buf;
    buf[at++] = COMMA_Q_EQ[0]!;
    buf[at++] = COMMA_Q_EQ[1]!;
    buf[at++] = COMMA_Q_EQ[2]!;
    at = writeDigits(buf, at, seq);
    buf[at++] = LETTER_I;
    for (let i = space; i < end; i++) buf[at++] = src[i]!;
    buf[at++] = NEWLINE;
    this.length = at;
    this.points++;
    return true;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + extra) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }
}

/** Writes a non-negative safe integer in decimal; answers the position after it. */
function writeDigits(buf: Buffer, at: number, value: number): number {
  let digits = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
  let pos = at + digits - 1;
  let v = value;
  do {
    const next = Math.floor(v / 10);
    buf[pos--] = 0x30 + (v - next * 10);
    v = next;
  } while (v > 0);
  return at + digits;
}
