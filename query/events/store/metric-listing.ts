/**
 * The metric listing the writer keeps per entity (a Redis set, members
 * `type␟metric␟variant␟<1 if some event had an iteration above -2^31>`).
 * It answers "which metrics/variants of which type" with one SMEMBERS per
 * entity instead of a scan of the events (docs/events-read.md compares it
 * with InfluxDB's SHOW TAG VALUES, which cannot tell the flag nor see logs),
 * and with none while this process keeps the listing's version (listing-cache.ts).
 */
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import { LISTING_VERSION_FIELD } from '../../../shared/events/storage-layout.js';
import type { EntityAccess, Namespace } from './entity-access.js';
import { ListingCache } from './listing-cache.js';

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
    /** Read on every call: the client of the moment (a reconnected or recording one). */
    private readonly client: () => RedisClient,
    prefix: string,
    private readonly cache: ListingCache = new ListingCache(0),
  ) {
    this.keys = redisKeys(prefix);
  }

  /** The listing of each entity, in the order of `ids`, as Redis holds it now. */
  async of(company: string, namespace: Namespace, ids: readonly string[]): Promise<ListingEntry[][]> {
    if (ids.length === 0) return [];
    if (ids.length === 1)
      return [parseListing(await this.client().sMembers(this.keys.metricListing(company, namespace, ids[0]!)))];
    const multi = this.client().multi();
    for (const id of ids) multi.sMembers(this.keys.metricListing(company, namespace, id));
    const replies = (await multi.exec()) as unknown as string[][];
    return replies.map((members) => parseListing(members ?? []));
  }

  async one(company: string, namespace: Namespace, id: string): Promise<ListingEntry[]> {
    return (await this.of(company, namespace, [id]))[0]!;
  }

  /**
   * The listings of `ids` (distinct) once every requested entity is known readable (`entities`).
   * A listing kept by this process (listing-cache.ts) is answered when the check's record reads its
   * version: the store work is then the check alone. The others are read with the check, in the same
   * round trip (their keys carry the caller's company: nothing of another company's is read), and a
   * kept one whose version moved is read after it.
   */
  async readable(
    entities: EntityAccess,
    company: string,
    namespace: Namespace,
    requested: readonly string[],
    ids: readonly string[],
  ): Promise<ReadonlyArray<readonly ListingEntry[]>> {
    const keys = ids.map((id) => this.keys.metricListing(company, namespace, id));
    const unkept = ids.filter((_, i) => !this.cache.holds(keys[i]!));
    const [records, read] = await Promise.all([
      entities.requireReadable(company, namespace, requested),
      this.versioned(company, namespace, unkept),
    ]);
    if (unkept.length === ids.length) return read;
    const versions = new Map(requested.map((id, i) => [id, records[i]?.listingVersion]));
    const listings = new Map<string, readonly ListingEntry[]>(unkept.map((id, i) => [id, read[i]!]));
    const stale: string[] = [];
    ids.forEach((id, i) => {
      if (listings.has(id)) return;
      const kept = this.cache.get(keys[i]!, versions.get(id));
      if (kept === undefined) stale.push(id);
      else listings.set(id, kept);
    });
    const again = await this.versioned(company, namespace, stale);
    stale.forEach((id, i) => listings.set(id, again[i]!));
    return ids.map((id) => listings.get(id)!);
  }

  /** Each listing read with its version (one MULTI, so the two are of one moment), and kept. */
  private async versioned(company: string, namespace: Namespace, ids: readonly string[]): Promise<ListingEntry[][]> {
    if (ids.length === 0) return [];
    if (!this.cache.enabled) return this.of(company, namespace, ids);
    const keys = ids.map((id) => this.keys.metricListing(company, namespace, id));
    const multi = this.client().multi();
    ids.forEach((id, i) =>
      multi.hGet(this.keys.entity(company, namespace, id), LISTING_VERSION_FIELD).sMembers(keys[i]!),
    );
    const replies = (await multi.exec()) as unknown as Array<string | string[] | null>;
    return keys.map((key, i) => {
      const version = (replies[2 * i] as string | null) ?? undefined;
      const members = (replies[2 * i + 1] as string[] | null) ?? [];
      const entries = parseListing(members);
      this.cache.set(key, version, entries, members);
      return entries;
    });
  }
}
