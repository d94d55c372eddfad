/**
 * A request's spill file: records that do not fit the process's memory
 * (INGEST_MAX_MEMORY_BYTES) are written here as they arrive and read back
 * when the request publishes. The file is unlinked as soon as it is open,
 * so it disappears with the process whatever happens (no orphans to clean).
 * Writes go through the thread pool; the buffer written is handed over and
 * not reused, so the event loop never waits for the disk.
 */
import { randomUUID } from 'node:crypto';
import { close, closeSync, openSync, read, unlinkSync, write } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiError } from '../../shared/errors/error-catalogue.js';

/** A disk that failed (full, gone) is answered like a store that failed: 503, the client re-sends. */
const notPersisted = (cause: unknown) => apiError('events_not_persisted', undefined, undefined, { cause });

/** Bytes of a request's writes under way beyond which its decoder waits: a disk slower than the body would otherwise let their buffers pile up. */
const BACKLOG_BYTES = 1024 * 1024;

export interface SpillSegment {
  offset: number;
  length: number;
}

export class SpillFile {
  private readonly fd: number;
  private end = 0;
  private pending: Promise<void> = Promise.resolve();
  private failure: unknown;
  private writing = 0;
  private readonly waiters: Array<() => void> = [];
  private closed?: Promise<void>;

  constructor(dir: string = tmpdir()) {
    const path = join(dir, `clearml-ingest-${process.pid}-${randomUUID()}.spill`);
    try {
      this.fd = openSync(path, 'w+', 0o600);
    } catch (error) {
      throw notPersisted(error);
    }
    try {
      unlinkSync(path);
    } catch (error) {
      closeSync(this.fd);
      throw notPersisted(error);
    }
  }

  /** Bytes written (or being written) so far. */
  get bytes(): number {
    return this.end;
  }

  /** Writes `buffer[0, length)` at the file's end; the buffer must not change until the write is done (`written`, told then). */
  write<B extends Uint8Array>(buffer: B, length: number, written?: (buffer: B) => void): SpillSegment {
    const segment = { offset: this.end, length };
    this.end += length;
    this.writing += length;
    const done = new Promise<void>((resolve) => {
      write(this.fd, buffer, 0, length, segment.offset, (error, bytes) => {
        if (error) this.failure ??= error;
        else if (bytes !== length)
          this.failure ??= new Error(`short write to the spill file (${bytes} of ${length} bytes)`);
        written?.(buffer);
        this.writing -= length;
        if (this.writing <= BACKLOG_BYTES) this.waiters.splice(0).forEach((go) => go());
        resolve();
      });
    });
    this.pending = Promise.all([this.pending, done]).then(() => undefined);
    return segment;
  }

  /** While more than BACKLOG_BYTES are being written, a promise of when they are not: the body is read on then (back-pressure to the client). */
  backlog(): Promise<void> | undefined {
    if (this.writing <= BACKLOG_BYTES) return undefined;
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Reads the segment into `target` at `at`, once every write is done. */
  async read(segment: SpillSegment, target: Uint8Array, at: number): Promise<void> {
    await this.pending;
    if (this.failure !== undefined) throw notPersisted(this.failure);
    let done = 0;
    while (done < segment.length) {
      const bytes = await new Promise<number>((resolve, reject) =>
        read(this.fd, target, at + done, segment.length - done, segment.offset + done, (error, n) =>
          error ? reject(notPersisted(error)) : resolve(n),
        ),
      );
      if (bytes === 0) throw notPersisted(new Error('the spill file ended early'));
      done += bytes;
    }
  }

  /** Closes the file once its writes are done (idempotent). */
  close(): Promise<void> {
    this.closed ??= this.pending.then(() => new Promise<void>((resolve) => close(this.fd, () => resolve())));
    return this.closed;
  }
}
