/**
 * An entity's records of one request, encoded straight into message-sized
 * buffers as events arrive. Held events then live outside the JS heap: a
 * request of 10k events no longer keeps 10k strings and objects alive until
 * its body is complete, which the garbage collector paid for (promoting them
 * to the old generation) on every busy ingest process.
 *
 * Under memory pressure (the process's HeldMemory is taken) a message's
 * bytes so far go to the request's spill file instead of a larger buffer,
 * and the message is put together again when it is published. Where a
 * message ends does not depend on this: a re-sent request is packed the
 * same way whatever the memory of the moment, so its messages get the same
 * ids (docs/ingest.md "Re-sent requests").
 *
 * `append` answers the bytes the sink newly holds (buffer capacity, not only
 * what was written, and bytes spilled), so that the in-flight budget counts
 * what the request really keeps.
 */
import { MAX_RECORDS_PER_MESSAGE } from '../../shared/events/storage-layout.js';
import type { HeldMemory } from '../publish/held-memory.js';
import type { BufferPool } from './buffer-pool.js';
import type { ByteLiteral } from './byte-literal.js';
import type { SpillFile, SpillSegment } from './spill-file.js';

/**
 * Small: a request may touch thousands of entities with an event each.
 * Buffers below 4 KiB come from Node's shared pool; busy entities grow by
 * doubling to a message's size in a few copies.
 */
const FIRST_CAPACITY = 1024;
/** Under memory pressure a message is written out in pieces of about this size (few writes, little memory per entity). */
const SPILL_SEGMENT = 64 * 1024;

interface Chunk {
  buffer: Buffer;
  /** bytes in `buffer` */
  used: number;
  /** bytes of the message: its spilled segments and `used` */
  length: number;
  records: number;
  spilled: SpillSegment[];
  /** the message starts with its E record (wire-format.ts) */
  headed: boolean;
  /** the series heads of its H records (EventEncoder.compactScalarHead), by number */
  heads?: Map<string, number>;
}

/** A message of the sink: its record count and size, and its bytes (read back from the spill file when some were spilled). */
export interface SinkMessage {
  records: number;
  size: number;
  payload(): Uint8Array | Promise<Uint8Array>;
  /** The message was acknowledged: a buffer it was read back into serves the next one at once. */
  acknowledged(): void;
}

/**
 * A J record of ASCII bytes that writes itself into a message buffer: its length, its
 * bytes at `at` (answering how many), its text; and its K form (wire-format.ts), which
 * names the head it starts with by its number among the message's H records.
 */
export interface AsciiRecord {
  readonly length: number;
  readonly head: ByteLiteral;
  writeInto(buffer: Buffer, at: number): number;
  /** The H record of its head: `H<length>:<head>`. */
  writeHeadInto(buffer: Buffer, at: number): number;
  writeCompactInto(buffer: Buffer, at: number, headNumber: number): number;
  text(): string;
}

/** The process memory the sink's buffers are counted against, and the request's spill file (opened on first use). */
export interface SinkRoom {
  memory: HeldMemory;
  spill: () => SpillFile;
  /** Buffers of finished requests, used again. */
  buffers?: BufferPool;
}

export class RecordSink {
  private readonly chunks: Chunk[] = [];
  /** buffers of messages put together again from the spill file, until acknowledged */
  private readonly readBuffers = new Map<Chunk, Buffer>();
  private memoryHeld = 0;
  private file?: SpillFile;

  constructor(
    /** Payload size messages are packed up to. */
    private readonly target: number,
    /** Largest payload the event log accepts: the bound for one record. */
    private readonly limit: number,
    /** Without it, records stay in memory whatever their size (tests, fixtures). */
    private readonly room?: SinkRoom,
  ) {}

  /**
   * Appends one framed record; answers the bytes newly held, or undefined when the record
   * exceeds one message. A J record comes with its `header`, the E record its message must
   * start with: written once, before the message's first J record.
   */
  append(record: string, header?: string): number | undefined {
    // A UTF-16 code unit takes at most 3 UTF-8 bytes.
    const worst = record.length * 3;
    if (worst + (header === undefined ? 0 : header.length * 3) > this.target)
      return this.appendLarge(header === undefined ? record : header + record, header);
    const grown = this.makeRoom(worst, header);
    const chunk = this.chunks[this.chunks.length - 1]!;
    this.wrote(chunk, chunk.buffer.write(record, chunk.used, 'utf8'));
    return grown;
  }

  /**
   * A scalar point of a series with a head (EventEncoder.compactScalarHead): a K record of
   * its `rest`, after the H record of its head (written first when its message has none
   * yet). Room is counted as for its J record's text (3 bytes a code unit at worst, which
   * covers both records) and for two records: where messages end depends on the records
   * alone, not on which heads a message already has.
   */
  appendScalar(head: string, rest: string, header: string): number | undefined {
    const body = head.length + rest.length;
    const worst = (2 + String(body).length + body) * 3;
    if (worst + header.length * 3 > this.target) return this.appendLarge(`${header}J${body}:${head}${rest}`, header);
    const grown = this.makeRoom(worst, header, 2);
    const chunk = this.chunks[this.chunks.length - 1]!;
    let headNumber = this.headNumber(chunk, head);
    if (headNumber < 0) {
      headNumber = ~headNumber;
      this.wrote(chunk, chunk.buffer.write(`H${head.length}:${head}`, chunk.used, 'utf8'));
    }
    const number = String(headNumber);
    this.wrote(chunk, chunk.buffer.write(`K${number.length + 1 + rest.length}:${number} ${rest}`, chunk.used, 'utf8'));
    return grown;
  }

  /** `appendScalar` for a record that writes its own bytes (plain-scalar-record.ts): the same bytes. */
  appendAscii(record: AsciiRecord, header: string): number | undefined {
    const worst = record.length * 3;
    if (worst + header.length * 3 > this.target) return this.appendLarge(header + record.text(), header);
    const grown = this.makeRoom(worst, header, 2);
    const chunk = this.chunks[this.chunks.length - 1]!;
    let headNumber = this.headNumber(chunk, record.head.text);
    if (headNumber < 0) {
      headNumber = ~headNumber;
      this.wrote(chunk, record.writeHeadInto(chunk.buffer, chunk.used));
    }
    this.wrote(chunk, record.writeCompactInto(chunk.buffer, chunk.used, headNumber));
    return grown;
  }

  /**
   * The number of `head` among the chunk's H records; when it has none yet, the number it gets
   * as `~number` (negative): the caller writes its H record. No callback: a closure per point
   * was ~100 bytes of garbage an event (docs/performance.md).
   */
  private headNumber(chunk: Chunk, head: string): number {
    const heads = (chunk.heads ??= new Map());
    const known = heads.get(head);
    if (known !== undefined) return known;
    const headNumber = heads.size;
    heads.set(head, headNumber);
    return ~headNumber;
  }

  private wrote(chunk: Chunk, bytes: number): void {
    chunk.used += bytes;
    chunk.length += bytes;
    chunk.records += 1;
  }

  /**
   * Makes the last chunk able to take a record of `worst` bytes (a new chunk when it is full,
   * a larger buffer or a spill when it is short), and writes its E record first when it needs
   * one; answers the bytes newly held.
   */
  private makeRoom(worst: number, header: string | undefined, records = 1): number {
    let chunk = this.chunks[this.chunks.length - 1];
    // What the record takes in a chunk: with its E record first when the chunk has none yet.
    const headerWorst = header === undefined ? 0 : header.length * 3;
    const headed = header === undefined || chunk?.headed === true;
    let needed = headed ? worst : worst + headerWorst;
    let grown = 0;
    if (
      chunk === undefined ||
      chunk.records + records + (headed ? 0 : 1) > MAX_RECORDS_PER_MESSAGE ||
      chunk.length + needed > this.target
    ) {
      if (chunk !== undefined && chunk.spilled.length > 0) grown += this.spillRest(chunk);
      chunk = {
        buffer: Buffer.allocUnsafe(FIRST_CAPACITY),
        used: 0,
        length: 0,
        records: 0,
        spilled: [],
        headed: false,
      };
      this.chunks.push(chunk);
      this.takeMemory(FIRST_CAPACITY, true);
      grown += FIRST_CAPACITY;
      needed = worst + headerWorst;
    }
    while (chunk.used + needed > chunk.buffer.length) {
      // Grow by copying up to a message's size: few, full messages; or, when memory is taken, write out what the chunk has.
      // From FIRST_CAPACITY at least: a message whose large record was spilled has an empty buffer, which doubling never grew.
      const step = Math.min(this.target, Math.max(chunk.buffer.length * 2, FIRST_CAPACITY)) - chunk.buffer.length;
      if (!this.takeMemory(step, chunk.used === 0 || chunk.buffer.length < SPILL_SEGMENT)) {
        grown += this.spillTail(chunk);
        continue;
      }
      const larger = this.allocate(chunk.buffer.length + step);
      chunk.buffer.copy(larger, 0, 0, chunk.used);
      grown += step;
      // Never published: free for another sink at once.
      this.room?.buffers?.give(chunk.buffer);
      chunk.buffer = larger;
    }
    if (header !== undefined && !chunk.headed) {
      this.wrote(chunk, chunk.buffer.write(header, chunk.used, 'utf8'));
      chunk.headed = true;
    }
    return grown;
  }

  private allocate(size: number): Buffer {
    return this.room?.buffers?.take(size) ?? Buffer.allocUnsafe(size);
  }

  /** Takes memory for a buffer; `must` when the sink cannot do without (nothing to write out, or a buffer too small to be worth a write). */
  private takeMemory(bytes: number, must: boolean): boolean {
    if (this.room === undefined) return true;
    if (must) this.room.memory.take(bytes);
    else if (!this.room.memory.tryTake(bytes)) return false;
    this.memoryHeld += bytes;
    return true;
  }

  private spillFile(): SpillFile {
    return (this.file ??= this.room!.spill());
  }

  /** Writes the chunk's bytes so far to the spill file and continues it in a buffer of a segment's size. */
  private spillTail(chunk: Chunk): number {
    const spilled = chunk.used;
    chunk.spilled.push(this.spillFile().write(chunk.buffer, spilled, (written) => this.room?.buffers?.give(written)));
    const capacity = Math.min(chunk.buffer.length, SPILL_SEGMENT);
    this.room!.memory.give(chunk.buffer.length - capacity);
    this.memoryHeld -= chunk.buffer.length - capacity;
    chunk.buffer = this.allocate(capacity);
    chunk.used = 0;
    return spilled;
  }

  /** A complete message of which some was spilled goes out whole: memory pressure it met holds for its end too. */
  private spillRest(chunk: Chunk): number {
    const spilled = chunk.used > 0 ? this.spillTail(chunk) : 0;
    this.room!.memory.give(chunk.buffer.length);
    this.memoryHeld -= chunk.buffer.length;
    chunk.buffer = Buffer.alloc(0);
    return spilled;
  }

  /** A record too large to share a message goes into one of its own (to the spill file when memory is taken), after its E record if it has one. */
  private appendLarge(records: string, header: string | undefined): number | undefined {
    if (Buffer.byteLength(records, 'utf8') > this.limit) return undefined;
    const count = header === undefined ? 1 : 2;
    const bytes = Buffer.from(records, 'utf8');
    if (!this.takeMemory(bytes.length, false)) {
      this.chunks.push({
        buffer: Buffer.alloc(0),
        used: 0,
        length: bytes.length,
        records: count,
        spilled: [this.spillFile().write(bytes, bytes.length)],
        headed: header !== undefined,
      });
    } else {
      this.chunks.push({
        buffer: bytes,
        used: bytes.length,
        length: bytes.length,
        records: count,
        spilled: [],
        headed: header !== undefined,
      });
    }
    return bytes.length;
  }

  /** The payloads, in append order (records held in memory only: tests and fixtures). */
  payloads(): Uint8Array[] {
    return this.messages().map((m) => {
      const payload = m.payload();
      if (payload instanceof Promise) throw new Error('spilled records are read with messages()');
      return payload;
    });
  }

  /** The messages with the number of records each holds, in append order. */
  messages(): SinkMessage[] {
    return this.chunks
      .filter((c) => c.records > 0)
      .map((c) => ({
        records: c.records,
        size: c.length,
        payload: () => (c.spilled.length === 0 ? c.buffer.subarray(0, c.used) : this.readBack(c)),
        acknowledged: () => this.readBackDone(c),
      }));
  }

  /**
   * A message put together again from its spilled segments and the bytes still in memory,
   * in a buffer of a power of two up to a message's size, so that the pool can hand it out
   * again as soon as the message is acknowledged (else a 15 MiB request left 15 of them to
   * the garbage collector).
   */
  private async readBack(chunk: Chunk): Promise<Uint8Array> {
    const whole =
      chunk.length <= this.target
        ? this.allocate(2 ** Math.ceil(Math.log2(Math.max(chunk.length, 1))))
        : Buffer.allocUnsafe(chunk.length);
    this.readBuffers.set(chunk, whole);
    const payload = whole.subarray(0, chunk.length);
    let at = 0;
    for (const segment of chunk.spilled) {
      await this.file!.read(segment, payload, at);
      at += segment.length;
    }
    chunk.buffer.copy(payload, at, 0, chunk.used);
    return payload;
  }

  private readBackDone(chunk: Chunk): void {
    const buffer = this.readBuffers.get(chunk);
    if (buffer === undefined) return;
    this.readBuffers.delete(chunk);
    this.room?.buffers?.give(buffer);
  }

  /**
   * Gives the memory of the sink's buffers back to the process (the request is done), and
   * the buffers themselves to the pool when `reusable`: nothing was published, or every
   * message was acknowledged (nats.js no longer holds them).
   */
  release(reusable: boolean): void {
    this.room?.memory.give(this.memoryHeld);
    this.memoryHeld = 0;
    const buffers = this.room?.buffers;
    if (reusable && buffers !== undefined) {
      for (const chunk of this.chunks) buffers.give(chunk.buffer);
    }
    this.chunks.length = 0;
    this.readBuffers.clear();
  }
}
