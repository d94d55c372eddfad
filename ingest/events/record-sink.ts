/**
 * An entity's records of one request, encoded straight into message-sized
 * buffers as events arrive. Held events then live outside the JS heap: a
 * request of 10k events no longer keeps 10k strings and objects alive until
 * its body is complete, which the garbage collector paid for (promoting them
 * to the old generation) on every busy ingest process.
 *
 * `append` answers the bytes the sink newly holds (buffer capacity, not only
 * what was written), so that the in-flight budget counts what the request
 * really keeps in memory.
 */
import { MAX_RECORDS_PER_MESSAGE } from '../../shared/events/storage-layout.js';

/**
 * Small: a request may touch thousands of entities with an event each.
 * Buffers below 4 KiB come from Node's shared pool; busy entities grow by
 * doubling to a message's size in a few copies.
 */
const FIRST_CAPACITY = 1024;

interface Chunk {
  buffer: Buffer;
  length: number;
  records: number;
}

export class RecordSink {
  private readonly chunks: Chunk[] = [];

  constructor(
    /** Payload size messages are packed up to. */
    private readonly target: number,
    /** Largest payload the event log accepts: the bound for one record. */
    private readonly limit: number,
  ) {}

  /** Appends one framed record; answers the bytes newly held, or undefined when the record exceeds one message. */
  append(record: string): number | undefined {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    const worst = record.length * 3;
    if (worst > this.target) return this.appendLarge(record);
    let grown = 0;
    let chunk = this.chunks[this.chunks.length - 1];
    if (chunk === undefined || chunk.records >= MAX_RECORDS_PER_MESSAGE || (chunk.length + worst > chunk.buffer.length && chunk.buffer.length >= this.target)) {
      chunk = { buffer: Buffer.allocUnsafe(FIRST_CAPACITY), length: 0, records: 0 };
      this.chunks.push(chunk);
      grown += FIRST_CAPACITY;
    }
    while (chunk.length + worst > chunk.buffer.length && chunk.buffer.length < this.target) {
      // Grow by copying until the chunk reaches a message's size: few, full messages.
      const larger = Buffer.allocUnsafe(Math.min(this.target, chunk.buffer.length * 2));
      chunk.buffer.copy(larger, 0, 0, chunk.length);
      grown += larger.length - chunk.buffer.length;
      chunk.buffer = larger;
    }
    if (chunk.length + worst > chunk.buffer.length) {
      chunk = { buffer: Buffer.allocUnsafe(this.target), length: 0, records: 0 };
      this.chunks.push(chunk);
      grown += this.target;
    }
    chunk.length += chunk.buffer.write(record, chunk.length, 'utf8');
    chunk.records += 1;
    return grown;
  }

  /** A record too large to share a message goes into one of its own. */
  private appendLarge(record: string): number | undefined {
    if (Buffer.byteLength(record, 'utf8') > this.limit) return undefined;
    const bytes = Buffer.from(record, 'utf8');
    this.chunks.push({ buffer: bytes, length: bytes.length, records: 1 });
    return bytes.length;
  }

  /** The payloads, in append order. */
  payloads(): Uint8Array[] {
    return this.messages().map((m) => m.payload);
  }

  /** The payloads with the number of records each holds, in append order. */
  messages(): Array<{ payload: Uint8Array; records: number }> {
    return this.chunks.filter((c) => c.records > 0).map((c) => ({ payload: c.buffer.subarray(0, c.length), records: c.records }));
  }
}
