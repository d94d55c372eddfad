/**
 * How long the oldest event not yet stored has waited, from readings of the
 * events stream's sequence numbers taken by this process. The stream keeps a
 * message until a writer acknowledged it (work-queue retention), so its first
 * sequence is the oldest event not yet stored; that message was published by
 * the first reading whose last sequence had reached it. Only this process's
 * clock is compared with itself: the NATS server's clock may differ from ours
 * by more than the bound the age is checked against.
 *
 * The age is a lower bound, short of the truth by at most the time between
 * two readings. Readings are kept from the oldest event's publication on, but
 * never more than `keepMs` back: an older event reads as at least `keepMs` old.
 */
export interface StreamSequences {
  /** The stream's first sequence: its oldest message. */
  readonly first_seq: number;
  /** The sequence of the last message published. */
  readonly last_seq: number;
  readonly messages: number;
}

export class BacklogAge {
  /** When each reading was taken, and the last sequence it saw; sequences increase along the list. */
  private readonly times: number[] = [];
  private readonly lasts: number[] = [];

  constructor(private readonly keepMs: number) {}

  /** Takes a reading made at `now` (ms, this process's monotonic clock); answers the age in ms. */
  observe(now: number, stream: StreamSequences): number {
    // A sequence going back: the stream was deleted and made again; the readings named messages now gone.
    if (stream.last_seq < (this.lasts.at(-1) ?? 0)) this.clear();
    if (stream.last_seq > (this.lasts.at(-1) ?? 0)) {
      this.times.push(now);
      this.lasts.push(stream.last_seq);
    }
    if (stream.messages === 0) {
      this.clear();
      return 0;
    }
    // Readings before the oldest message was published say nothing of it any more.
    let drop = 0;
    while (drop < this.lasts.length && this.lasts[drop]! < stream.first_seq) drop++;
    // Of those older than keepMs, the newest alone is needed: it shows the age is at least keepMs.
    while (drop + 1 < this.times.length && this.times[drop + 1]! <= now - this.keepMs) drop++;
    this.times.splice(0, drop);
    this.lasts.splice(0, drop);
    const since = this.times[0];
    return since === undefined ? 0 : Math.max(0, now - since);
  }

  private clear(): void {
    this.times.length = 0;
    this.lasts.length = 0;
  }
}

/** How quickly the writers' recent rate follows a change: the weight of a reading this long ago is 1/e. */
const RATE_TIME_CONSTANT_MS = 2_000;

/**
 * How long the writers would take to store the stream's backlog at their
 * recent rate (messages stored a ms, smoothed over a few seconds of readings),
 * and whether they store anything at all. While a flood is held back, the
 * oldest event's age keeps growing until the backlog is nearly gone, while
 * this falls as the writers work through it: taken together (the smaller of
 * the two), the gate lets the flood in again while the writers still have work
 * queued. Infinite while the writers store nothing with messages waiting.
 */
export class DrainTime {
  private last?: { at: number; lastSeq: number; messages: number };
  private rate = 0;
  /** The last reading that found messages stored, or none waiting. */
  private movedAt?: number;

  constructor(private readonly stallMs: number) {}

  observe(now: number, stream: StreamSequences): number {
    const last = this.last;
    if (last !== undefined && stream.last_seq < last.lastSeq)
      this.rate = 0; // the stream was made again
    else if (last !== undefined && now > last.at) {
      // Published since the last reading, less what the backlog grew by.
      const stored = Math.max(0, stream.last_seq - last.lastSeq - (stream.messages - last.messages));
      const elapsed = now - last.at;
      // After a stall the rate starts from what the writers store now, not from the nothing before.
      if (stored > 0 && this.stalled(now)) this.rate = stored / elapsed;
      else this.rate += (1 - Math.exp(-elapsed / RATE_TIME_CONSTANT_MS)) * (stored / elapsed - this.rate);
      if (stored > 0) this.movedAt = now;
    }
    if (stream.messages === 0 || this.movedAt === undefined) this.movedAt = now;
    this.last = { at: now, lastSeq: stream.last_seq, messages: stream.messages };
    if (stream.messages === 0) return 0;
    return this.rate > 0 ? stream.messages / this.rate : Number.POSITIVE_INFINITY;
  }

  /** Messages have waited `stallMs` or more with none of them stored: a writer or a store is down, not slow. */
  stalled(now: number): boolean {
    return this.movedAt !== undefined && now - this.movedAt >= this.stallMs;
  }
}
