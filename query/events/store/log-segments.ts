/**
 * A task's log streams as the scalar-side reads need them (get_task_events,
 * get_task_latest_scalar_values): counts, and every entry decoded. Logs
 * belong to tasks only and are keyed by the task id (ids are global).
 *
 * SDK log events carry no iteration; the metric listing flags the rare log
 * metric that had one, and only then do iteration-ordered reads load the
 * logs to place them (docs/events-read.md).
 */
import type { MetricFilter } from '../common/metric-variants.js';
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { ListingEntry } from './metric-listing.js';
import { MetricListings } from './metric-listing.js';
import { readLogRange, type LogEntry } from './log-stream-range.js';
import { decodeLogEntry, type SequencedEvent } from './stored-events.js';

/** Entries per XRANGE: big enough to amortise round trips, small enough not to stall Redis. */
const READ_CHUNK = 10_000;

export class LogSegments {
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  async segmentKeys(task: string): Promise<string[]> {
    const count = Number((await this.redis.get(this.keys.logSegmentCount(task))) ?? 1);
    return Array.from({ length: Math.max(1, count) }, (_, i) => this.keys.logSegment(task, i));
  }

  /** Number of log events of the task. */
  async count(task: string): Promise<number> {
    const segments = await this.segmentKeys(task);
    const lengths = await Promise.all(segments.map((key) => this.redis.xLen(key)));
    return lengths.reduce((a, b) => a + b, 0);
  }

  /** Every log event of the task passing the filter (segments merged; unordered). */
  async all(task: string, filter?: MetricFilter): Promise<SequencedEvent[]> {
    const out: SequencedEvent[] = [];
    await this.scan(task, (entry) => {
      const decoded = decodeLogEntry(task, entry.id, entry.json);
      if (filter === undefined || filter.matches(decoded.event.metric as string, decoded.event.variant as string))
        out.push(decoded);
    });
    return out;
  }

  /** Every entry of every segment, segment by segment. */
  private async scan(task: string, visit: (entry: LogEntry) => void): Promise<void> {
    for (const key of await this.segmentKeys(task)) {
      let start = '-';
      for (;;) {
        const entries = await readLogRange(this.redis, key, 'asc', start, '+', READ_CHUNK);
        for (const entry of entries) visit(entry);
        if (entries.length < READ_CHUNK) break;
        start = `(${entries[entries.length - 1]!.id}`;
      }
    }
  }

  /** Number of log events passing the filter: a scan only when the listing cannot tell. */
  async countMatching(task: string, listing: readonly ListingEntry[], filter: MetricFilter): Promise<number> {
    const logs = listing.filter((e) => e.type === 'log');
    if (filter.isEmpty || logs.every((e) => filter.matches(e.metric, e.variant))) return this.count(task);
    if (!logs.some((e) => filter.matches(e.metric, e.variant))) return 0;
    return (await this.all(task, filter)).length;
  }

  /** The greatest iteration of the task's log events; undefined when the listing says none has one. */
  async maxIteration(company: string, task: string, listing?: readonly ListingEntry[]): Promise<number | undefined> {
    const entries = listing ?? (await new MetricListings(() => this.redis, this.prefix).one(company, 't', task));
    if (!hasIterationLogs(entries)) return undefined;
    let max: number | undefined;
    for (const e of await this.all(task)) if (e.iter !== undefined && (max === undefined || e.iter > max)) max = e.iter;
    return max;
  }
}

/** Whether some log event of the entity had an iteration (above -2^31, the listing's flag). */
export function hasIterationLogs(listing: readonly ListingEntry[], filter?: MetricFilter): boolean {
  return listing.some(
    (e) => e.type === 'log' && e.regular && (filter === undefined || filter.matches(e.metric, e.variant)),
  );
}
