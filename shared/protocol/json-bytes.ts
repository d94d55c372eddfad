/**
 * Builds a JSON answer as bytes: text is encoded straight into one growing
 * buffer and stored bytes (log entries read from Redis as buffers) are
 * copied in as they are. Large answers made of stored JSON then cost one
 * copy per entry, instead of a decode into strings, a join, and an encode
 * of the joined text when it is sent. Room is kept in front for the
 * envelope, so wrapping the answer copies nothing.
 */
const HEADROOM = 1024;
/** Spans up to this many bytes are copied by a loop (`bytes`). */
const SHORT_BYTES = 64;

export class JsonBytesWriter {
  private buffer: Buffer;
  private start = HEADROOM;
  private end = HEADROOM;
  /** Bytes of `span` not copied yet. */
  private spanBytes: Uint8Array | undefined;
  private spanFrom = 0;
  private spanTo = 0;

  constructor(initialBytes = 16 * 1024) {
    this.buffer = Buffer.allocUnsafe(HEADROOM + initialBytes);
  }

  text(text: string): this {
    this.flushSpan();
    // UTF-8 takes at most 3 bytes per UTF-16 unit; Buffer.write would silently truncate.
    this.reserve(text.length * 3);
    this.end += this.buffer.write(text, this.end);
    return this;
  }

  /**
   * Text of one-byte characters only (numbers, punctuation), copied character by character: for the
   * short texts written once per value, a native write costs more than the loop.
   */
  ascii(text: string): this {
    this.flushSpan();
    this.reserve(text.length);
    const buffer = this.buffer;
    let at = this.end;
    for (let k = 0; k < text.length; k++) buffer[at++] = text.charCodeAt(k);
    this.end = at;
    return this;
  }

  /** `bytes` from offset `from` up to offset `to`. */
  bytes(bytes: Uint8Array, from = 0, to = bytes.length): this {
    this.flushSpan();
    const size = to - from;
    this.reserve(size);
    if (size <= SHORT_BYTES) {
      // Byte by byte: a view and a native copy cost more than the loop for a short span.
      const buffer = this.buffer;
      let at = this.end;
      for (let k = from; k < to; k++) buffer[at++] = bytes[k]!;
    } else this.buffer.set(from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to), this.end);
    this.end += size;
    return this;
  }

  /**
   * `bytes` from offset `from` up to offset `to`, copied together with the next span when that one
   * follows it in the same array: events written one after another into one buffer
   * (query/events/store/scalar-csv-rows.ts) are copied in one go, not one copy each.
   */
  span(bytes: Uint8Array, from: number, to: number): this {
    if (bytes === this.spanBytes && from === this.spanTo) {
      this.spanTo = to;
      return this;
    }
    this.flushSpan();
    this.spanBytes = bytes;
    this.spanFrom = from;
    this.spanTo = to;
    return this;
  }

  private flushSpan(): void {
    const bytes = this.spanBytes;
    if (bytes === undefined) return;
    this.spanBytes = undefined;
    this.bytes(bytes, this.spanFrom, this.spanTo);
  }

  /** Overwrites the byte `back` bytes before the end of what was written. */
  patchByte(back: number, value: number): this {
    this.flushSpan();
    this.buffer[this.end - back] = value;
    return this;
  }

  /** Makes room for `more` bytes at once: callers that know an answer's size avoid repeated growth. */
  reserve(more: number): this {
    if (this.end + more <= this.buffer.length) return this;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.end + more));
    this.buffer.copy(grown, this.start, this.start, this.end);
    this.buffer = grown;
    return this;
  }

  get byteLength(): number {
    this.flushSpan();
    return this.end - this.start;
  }

  /** The bytes written, between `head` and `tail`; the writer must not be used afterwards. */
  finish(head = '', tail = ''): Buffer {
    this.flushSpan();
    const headBytes = Buffer.byteLength(head);
    if (headBytes > this.start) return Buffer.concat([Buffer.from(head), this.finish('', tail)]);
    this.buffer.write(head, this.start - headBytes);
    this.text(tail);
    return this.buffer.subarray(this.start - headBytes, this.end);
  }
}
