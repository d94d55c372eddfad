/**
 * The line-protocol body of one InfluxDB write, built in a reused byte
 * buffer: each point is copied from the message bytes with `,q=<seq>i`
 * spliced in before its time. No per-point strings or objects: the writer's
 * CPU went mostly to garbage collection when it built them. The short time
 * part is copied in a loop: Buffer#copy makes a Uint8Array view per call,
 * which costs more than copying a dozen bytes (0.21 -> 0.16 µs a point).
 * A K record's line starts with the same bytes for every point of its
 * series under one E record (measurement, the E record's tags, the rest of
 * the head), and ends its fields with the E record's: both are made once
 * and copied whole, which `Uint8Array#set` does without a view (~14 ns
 * against ~50 for a span's `Buffer#copy`, docs/performance.md).
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
  // The K records' line starts (null: a head without a tag) by head position, and the fields,
  // of the E record `header` in the payload `src`: a new payload or E record starts them over.
  private prefixSrc: Buffer | undefined;
  private prefixHeader: PointHeader | undefined;
  private readonly prefixes = new Map<number, Uint8Array | null>();
  private fields = new Uint8Array(0);

  reset(): void {
    this.length = 0;
    this.points = 0;
    // The batch is stored: keep no message alive for the next one.
    this.prefixes.clear();
    this.prefixSrc = undefined;
    this.prefixHeader = undefined;
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
    } else if (compact) {
      const prefix = this.prefixOf(src, header, headStart, headEnd);
      if (prefix === null) return false;
      const fields = this.fields;
      this.reserve(prefix.length + end - start + fields.length + 24);
      const buf = this.buf;
      at = this.length;
      buf.set(prefix, at);
      at += prefix.length;
      // The rest before the time is a value and its other fields, a few dozen bytes: a loop beats a copy.
      for (let i = start; i < space; i++) buf[at++] = src[i]!;
      buf.set(fields, at);
      at += fields.length;
    } else {
      const comma = measurementEnd(src, start, space);
      if (comma < 0) return false;
      const { tagsStart, tagsEnd, fieldsStart, fieldsEnd } = header;
      this.reserve(end - start + tagsEnd - tagsStart + fieldsEnd - fieldsStart + 24);
      // The short parts in loops written out here (a helper function per part measured slower),
      // the record's own middle by one copy.
      const buf = this.buf;
      at = this.length;
      for (let i = start; i < comma; i++) buf[at++] = src[i]!;
      for (let i = tagsStart; i < tagsEnd; i++) buf[at++] = src[i]!;
      at += src.copy(buf, at, comma, space);
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

  /** The start of the line of every K record naming the head src[headStart, headEnd) under `header`; null when the head has no tag. */
  private prefixOf(src: Buffer, header: PointHeader, headStart: number, headEnd: number): Uint8Array | null {
    if (src !== this.prefixSrc || header !== this.prefixHeader) {
      this.prefixes.clear();
      this.prefixSrc = src;
      this.prefixHeader = header;
      this.fields = new Uint8Array(src.subarray(header.fieldsStart, header.fieldsEnd));
    }
    let prefix = this.prefixes.get(headStart);
    if (prefix === undefined) {
      const comma = measurementEnd(src, headStart, headEnd);
      if (comma < 0) prefix = null;
      else {
        const tags = src.subarray(header.tagsStart, header.tagsEnd);
        prefix = new Uint8Array(headEnd - headStart + tags.length);
        prefix.set(src.subarray(headStart, comma));
        prefix.set(tags, comma - headStart);
        prefix.set(src.subarray(comma, headEnd), comma - headStart + tags.length);
      }
      this.prefixes.set(headStart, prefix);
    }
    return prefix;
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

/** Where the measurement of the line part src[start, limit) ends: its first comma, or -1 when a space or the limit comes first (no tag: malformed). */
function measurementEnd(src: Buffer, start: number, limit: number): number {
  let comma = start;
  while (comma < limit && src[comma] !== COMMA && src[comma] !== SPACE) comma++;
  return comma === limit || src[comma] !== COMMA ? -1 : comma;
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
