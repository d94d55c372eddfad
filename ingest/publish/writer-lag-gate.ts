/**
 * Keeps one company's flood from holding up every other company's events.
 * Writers store each partition in arrival order, and every company's events
 * share the partitions: when ingest acknowledges faster than the writers
 * store, the backlog grows, and a company that sends one event waits behind
 * all of it (measured: B's events visible 19-27 s after their
 * acknowledgement at the median, up to 50 s, while A's twelve clients
 * flooded for a minute; docs/ingest.md, "When the writers are behind").
 *
 * While the writers are more than INGEST_MAX_WRITER_LAG_MS behind, a request
 * (or gRPC chunk) is refused with 429 `writers_behind` and Retry-After when
 * its company is among those sending the most: at least half as much, of late,
 * as the company sending the most through this process. A company sending
 * less than half of that is let through, so the backlog stops growing at the
 * bound while the light senders' events still enter it. A company alone is
 * the heaviest, so it too is held at the bound when it sends faster than
 * the writers store.
 *
 * Not while the writers store nothing at all (a writer or a store down):
 * then everyone's events wait alike, refusing would make no one's wait
 * shorter, and JetStream keeps what arrives meanwhile, as it always did (up
 * to NATS_STREAM_MAX_BYTES). Once the writers store again, the backlog of the
 * outage counts like any other.
 *
 * "Of late": bytes published, decayed by half every HALF_LIFE_MS, so that a
 * company refused for a while still counts as heavy for some seconds.
 */
import { apiError } from '../../shared/errors/error-catalogue.js';

const HALF_LIFE_MS = 5_000;
const DECAY_PER_MS = Math.LN2 / HALF_LIFE_MS;
/** Below a byte of recent sending, a company is forgotten. */
const FORGOTTEN = 1;

export interface WriterLagGateOptions {
  /** INGEST_MAX_WRITER_LAG_MS; 0 never refuses. */
  readonly maxLagMs: number;
  /** How far behind the writers are now, ms (as read by WriterLagSampler). */
  lagMs(): number;
  /** The writers store nothing at all now: nobody is refused. */
  stalled?(): boolean;
  /** ms, monotonic. */
  now?: () => number;
}

interface Recent {
  bytes: number;
  at: number;
}

export class WriterLagGate {
  private readonly recent = new Map<string, Recent>();
  private readonly now: () => number;
  refusals = 0;

  constructor(private readonly options: WriterLagGateOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Throws 429 `writers_behind` when the writers are behind the bound, yet storing, and `company` is among the heaviest senders. */
  admit(company: string): void {
    const { maxLagMs } = this.options;
    if (maxLagMs === 0 || this.options.lagMs() <= maxLagMs || this.options.stalled?.()) return;
    const now = this.now();
    const heaviest = this.sweep(now);
    const own = this.recent.get(company);
    if ((own === undefined ? 0 : decayed(own, now)) * 2 < heaviest) return;
    this.refusals += 1;
    throw apiError('writers_behind', undefined, undefined, { headers: { 'retry-after': '1' } });
  }

  /** `bytes` of `company`'s events published. */
  count(company: string, bytes: number): void {
    const now = this.now();
    const sent = this.recent.get(company);
    if (sent === undefined) this.recent.set(company, { bytes, at: now });
    else {
      sent.bytes = decayed(sent, now) + bytes;
      sent.at = now;
    }
  }

  /** Forgets the companies that sent nothing for minutes; answers the heaviest sender's recent bytes. */
  sweep(now = this.now()): number {
    let heaviest = 0;
    for (const [name, sent] of this.recent) {
      const bytes = decayed(sent, now);
      if (bytes < FORGOTTEN) this.recent.delete(name);
      else heaviest = Math.max(heaviest, bytes);
    }
    return heaviest;
  }

  /** Companies remembered (bounded by those that sent in the last minutes). */
  get companies(): number {
    return this.recent.size;
  }
}

function decayed(sent: Recent, now: number): number {
  return sent.bytes * Math.exp(-(now - sent.at) * DECAY_PER_MS);
}
