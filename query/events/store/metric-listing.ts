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
const ONE = 49; // '1'

/**
 * Parses the members of one set; a series listed with both flags counts as regular. A member is cut
 * at its separators by position and its series named by its text up to the flag: with split() and
 * a key joined again from the parts, a listing of 29 members took 19-32 µs, this way 7-11 µs
 * (micro-benchmark), in reads whose whole own work is some tens of µs.
 */
export function parseListing(members: Iterable<string>): ListingEntry[] {
  const byKey = new Map<string, ListingEntry>();
  for (const member of members) {
    const first = member.indexOf(SEPARATOR);
    const second = first < 0 ? -1 : member.indexOf(SEPARATOR, first + 1);
    const third = second < 0 ? -1 : member.indexOf(SEPARATOR, second + 1);
    if (third < 0 || member.includes(SEPARATOR, third + 1)) continue;
    const key = member.slice(0, third);
    const regular = member.length === third + 2 && member.charCodeAt(third + 1) === ONE;
    const known = byKey.get(key);
    if (known === undefined)
      byKey.set(key, {
        type: member.slice(0, first),
        metric: member.slice(first + 1, second),
        variant: member.slice(second + 1, third),
        regular,
      });
    else if (regular && !known.regular) byKey.set(key, { ...known, regular });
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
