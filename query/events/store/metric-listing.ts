/**
 * The metric listing the writer keeps per entity (a Redis set, members
 * `type␟metric␟variant␟<1 if some event had an iteration above -2^31>`).
 * It answers "which metrics/variants of which type" with one SMEMBERS per
 * entity instead of a scan of the events (docs/events-read.md compares it
 * with InfluxDB's SHOW TAG VALUES, which cannot tell the flag nor see logs).
 */
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { Namespace } from './entity-access.js';

export interface ListingEntry {
  readonly type: string;
  readonly metric: string;
  readonly variant: string;
  /** Some event of it had an iteration above -2^31 (counts for histograms and get_task_metrics). */
  readonly regular: boolean;
}

const SEPARATOR = '\u001f';

/** Parses the members of one set; a series listed with both flags counts as regular. */
export function parseListing(members: Iterable<string>): ListingEntry[] {
  const byKey = new Map<string, ListingEntry>();
  for (const member of members) {
    const parts = member.split(SEPARATOR);
    if (parts.length !== 4) continue;
    const [type, metric, variant, flag] = parts as [string, string, string, string];
    const key = `${type}${SEPARATOR}${metric}${SEPARATOR}${variant}`;
    const regular = flag === '1' || (byKey.get(key)?.regular ?? false);
    byKey.set(key, { type, metric, variant, regular });
  }
  return [...byKey.values()];
}

export class MetricListings {
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** The listing of each entity, in the order of `ids`. */
  async of(company: string, namespace: Namespace, ids: readonly string[]): Promise<ListingEntry[][]> {
    if (ids.length === 0) return [];
    if (ids.length === 1)
      return [parseListing(await this.redis.sMembers(this.keys.metricListing(company, namespace, ids[0]!)))];
    const multi = this.redis.multi();
    for (const id of ids) multi.sMembers(this.keys.metricListing(company, namespace, id));
    const replies = (await multi.exec()) as unknown as string[][];
    return replies.map((members) => parseListing(members ?? []));
  }

  async one(company: string, namespace: Namespace, id: string): Promise<ListingEntry[]> {
    return (await this.of(company, namespace, [id]))[0]!;
  }
}
