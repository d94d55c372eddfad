/**
 * Reads the events stream twice a second and keeps how far the writers are
 * behind, for the WriterLagGate of this ingest process: the smaller of the
 * oldest event's age (BacklogAge) and the time the writers would take to store
 * the backlog at their recent rate (DrainTime). The age alone stays past the
 * bound until the backlog is nearly gone, and the writers would idle; the
 * drain time alone reads a burst after a quiet spell (no recent rate) as a
 * long wait. It also tells when the writers store nothing at all (stalled),
 * which the gate does not hold against anyone. A reading that fails (NATS
 * unreachable, the call's timeout) makes the lag unknown, read as none:
 * refusing on a guess would refuse everyone while publishes answer for
 * themselves.
 */
import type { JetStreamManager, StreamInfo } from 'nats';
import type { Logger } from '../../shared/observability/logger.js';
import { BacklogAge, DrainTime } from './backlog-age.js';

/** Between readings: the age is short of the truth by at most this. */
export const LAG_READING_MS = 500;
/** The oldest reading kept: ages beyond it read as at least this old. */
const KEEP_MS = 5 * 60_000;
/** Three readings in a row with messages waiting and none stored: the writers are stopped, not slow. */
const STALL_MS = 3 * LAG_READING_MS;

export class WriterLagSampler {
  private readonly age = new BacklogAge(KEEP_MS);
  private readonly drain = new DrainTime(STALL_MS);
  private stall = false;
  private timer?: NodeJS.Timeout;
  private reading?: Promise<void>;
  private lag = 0;
  private failing = false;

  constructor(
    private readonly options: {
      jsm: () => Promise<JetStreamManager>;
      stream: string;
      logger: Logger;
      /** After each reading, with the stream's info when it was read (the gate forgets old senders, the stream keeper takes the fill). */
      onReading?: (info: StreamInfo | undefined) => void;
      now?: () => number;
    },
  ) {}

  /** How far behind the writers are, ms (0 when unknown). */
  get lagMs(): number {
    return this.lag;
  }

  /** Events wait and the writers have stored none of them for a second and a half (a writer or a store down). */
  get stalled(): boolean {
    return this.stall;
  }

  start(): void {
    this.timer = setInterval(() => this.read(), LAG_READING_MS);
    this.timer.unref();
    this.read();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.reading;
  }

  private read(): void {
    // A slow reading is not joined by the next one.
    this.reading ??= this.readOnce().finally(() => (this.reading = undefined));
  }

  private async readOnce(): Promise<void> {
    let info: StreamInfo | undefined;
    try {
      info = await (await this.options.jsm()).streams.info(this.options.stream);
      const now = this.options.now?.() ?? performance.now();
      this.lag = Math.min(this.age.observe(now, info.state), this.drain.observe(now, info.state));
      this.stall = this.drain.stalled(now);
      if (this.failing) this.options.logger.info('events stream readable again: writer lag known');
      this.failing = false;
    } catch (error) {
      this.lag = 0;
      this.stall = false;
      if (!this.failing)
        this.options.logger.warn(
          { err: error },
          'cannot read the events stream: writer lag unknown, nobody refused for it',
        );
      this.failing = true;
    }
    this.options.onReading?.(info);
  }
}
