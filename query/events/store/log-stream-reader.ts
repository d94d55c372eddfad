/**
 * Reads a task's log in (timestamp, arrival) order, either way. The log is
 * one Redis stream per segment (the writer opens another segment when a
 * line arrives older than a segment's top); every segment is in id order,
 * so a read is a k-way merge of range reads (XRANGE / XREVRANGE with COUNT),
 * fetched lazily: the cost grows with what the caller consumes, not with
 * the size of the log.
 */
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import { LogEntry, readLogRange, type RangeDirection } from './log-stream-range.js';

export type LogDirection = RangeDirection;
export { LogEntry };

export interface LogReadOptions {
  readonly direction: LogDirection;
  /** Only entries strictly after (asc) / before (desc) this millisecond. */
  readonly afterMs?: number;
  /** Entries fetched by the first range read of a segment. */
  readonly chunk: number;
  /** Later reads double the chunk up to this (filtered reads may skip many entries). */
  readonly maxChunk?: number;
  /** Read the next range of a segment as soon as one arrives: for readers that consume everything (streamed answers). */
  readonly readAhead?: boolean;
}

const MAX_SEQ = '18446744073709551615';

/** peekBuffered()'s answer when a segment must be read from Redis first. */
export const NEEDS_FETCH = Symbol('needs fetch');

export async function logSegmentKeys(redis: RedisClient, prefix: string, task: string): Promise<string[]> {
  const keys = redisKeys(prefix);
  const count = Number((await redis.get(keys.logSegmentCount(task))) ?? 1);
  return Array.from({ length: Math.max(1, Number.isFinite(count) ? count : 1) }, (_, n) => keys.logSegment(task, n));
}

class SegmentCursor {
  private buffer: LogEntry[] = [];
  private at = 0;
  private exhausted = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly key: string,
    private readonly direction: LogDirection,
    /** Next range bound in reading direction: start for asc, end for desc. */
    private bound: string,
    private chunk: number,
    private readonly maxChunk: number,
    private readonly readAhead: boolean,
  ) {}

  private ahead: Promise<LogEntry[]> | undefined;

  /** The buffered head; undefined when the buffer is empty (see needsFetch) or the segment is done. */
  get head(): LogEntry | undefined {
    return this.buffer[this.at];
  }

  get needsFetch(): boolean {
    return this.at >= this.buffer.length && !this.exhausted;
  }

  async fetch(): Promise<void> {
    const requested = this.chunk;
    this.buffer = await (this.ahead ?? this.read());
    this.ahead = undefined;
    this.at = 0;
    if (this.buffer.length < requested) this.exhausted = true;
    const last = this.buffer[this.buffer.length - 1];
    if (last !== undefined) this.bound = `(${last.id}`;
    if (this.readAhead && !this.exhausted) {
      // Redis prepares the next range while the caller consumes this one.
      this.ahead = this.read();
      // Marked handled: a reader abandoned mid-way (client gone) must not leave an unhandled rejection.
      this.ahead.catch(() => undefined);
    }
  }

  private read(): Promise<LogEntry[]> {
    const count = this.chunk;
    this.chunk = Math.min(this.chunk * 2, Math.max(this.chunk, this.maxChunk));
    return readLogRange(this.redis, this.key, this.direction, this.bound, this.direction === 'asc' ? '+' : '-', count);
  }

  advance(): void {
    this.at++;
  }
}

/**
 * The merged log of a task in one direction. Only running out of a
 * segment's buffer costs a round trip; everything else is synchronous, so
 * long reads (downloads, filtered scans) pay little per entry.
 */
export class MergedLogReader {
  private current: SegmentCursor | undefined;

  private constructor(
    private readonly cursors: SegmentCursor[],
    private readonly direction: LogDirection,
  ) {}

  static async open(
    redis: RedisClient,
    prefix: string,
    task: string,
    options: LogReadOptions,
  ): Promise<MergedLogReader> {
    const keys = await logSegmentKeys(redis, prefix, task);
    const bound = initialBound(options);
    const cursors =
      bound === undefined
        ? []
        : keys.map(
            (key) =>
              new SegmentCursor(
                redis,
                key,
                options.direction,
                bound,
                options.chunk,
                options.maxChunk ?? options.chunk,
                options.readAhead ?? false,
              ),
          );
    return new MergedLogReader(cursors, options.direction);
  }

  /** The next entry in order, not consumed (advance() consumes it). */
  async peek(): Promise<LogEntry | undefined> {
    const buffered = this.peekBuffered();
    if (buffered !== NEEDS_FETCH) return buffered;
    await this.fill();
    return this.peekBuffered() as LogEntry | undefined;
  }

  /**
   * The next entry when every segment still has buffered entries, without a
   * promise (page loops call this per entry); NEEDS_FETCH when fill() must
   * run first.
   */
  peekBuffered(): LogEntry | undefined | typeof NEEDS_FETCH {
    for (const c of this.cursors) if (c.needsFetch) return NEEDS_FETCH;
    let best: SegmentCursor | undefined;
    for (const c of this.cursors) {
      const h = c.head;
      if (h !== undefined && (best === undefined || this.before(h, best.head!))) best = c;
    }
    this.current = best;
    return best?.head;
  }

  /** Fetches the next range of every segment that ran out of buffered entries. */
  async fill(): Promise<void> {
    await Promise.all(this.cursors.filter((c) => c.needsFetch).map((c) => c.fetch()));
  }

  /** Consumes the entry the last peek() returned. */
  advance(): void {
    this.current?.advance();
    this.current = undefined;
  }

  async next(): Promise<LogEntry | undefined> {
    const entry = await this.peek();
    this.advance();
    return entry;
  }

  private before(a: LogEntry, b: LogEntry): boolean {
    const order = a.ms - b.ms || a.seq - b.seq;
    return this.direction === 'asc' ? order < 0 : order > 0;
  }
}

/** The first range bound, or undefined when nothing can lie beyond `afterMs`. */
function initialBound({ direction, afterMs }: LogReadOptions): string | undefined {
  if (afterMs === undefined) return direction === 'asc' ? '-' : '+';
  const ms = Math.trunc(afterMs);
  if (direction === 'asc') return ms < 0 ? '-' : `${ms + 1}-0`;
  return ms <= 0 ? undefined : `${ms - 1}-${MAX_SEQ}`;
}
