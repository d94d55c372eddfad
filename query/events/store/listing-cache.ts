/**
 * The metric listings a query process read, kept with the version the
 * writer gave each (storage-layout LISTING_VERSION_FIELD), so that a read
 * whose entity check reads the same version answers the kept listing
 * instead of reading and parsing the whole set again: the check's HMGET
 * carries the version, so a listing read costs that one command.
 *
 * A listing is kept only as read together with its version (one MULTI),
 * and the writer gives a listing a new version, never used before in its
 * company, in the same script that adds a member; deleting an entity's
 * events removes the version with the listing. So a kept listing is the
 * current one exactly while the versions match. Keys are the listings'
 * Redis keys, which carry the company: a company is only ever answered
 * its own entries, and only after its entity check passed.
 *
 * Bounded by LISTING_CACHE_BYTES (the members' length, least recently used
 * dropped first) and by age: after MAX_AGE_MS an entry is read again, which
 * bounds what a Redis that lost its last writes (and so could hand out a
 * version twice) can leave stale.
 */
import { LRUCache } from 'lru-cache';
import type { ListingEntry } from './metric-listing.js';

const MAX_AGE_MS = 60_000;
/** What an entry costs beyond its members' text (objects, map slot), in the same units. */
const ENTRY_OVERHEAD = 64;

interface Kept {
  readonly version: string;
  readonly entries: readonly ListingEntry[];
  readonly size: number;
}

export class ListingCache {
  private readonly kept: LRUCache<string, Kept> | undefined;

  constructor(maxBytes: number) {
    this.kept =
      maxBytes > 0
        ? new LRUCache<string, Kept>({
            maxSize: maxBytes,
            sizeCalculation: (k) => k.size,
            ttl: MAX_AGE_MS,
            // The clock read on each lookup (~50 ns). By default lru-cache keeps a read for 1 ms and
            // starts a timer to forget it: with a read every few ms, a timer per read.
            ttlResolution: 0,
          })
        : undefined;
  }

  /** Whether listings are kept at all (LISTING_CACHE_BYTES above 0). */
  get enabled(): boolean {
    return this.kept !== undefined;
  }

  /** Whether a listing of `key` is kept (of whatever version): then it is worth checking the version first. */
  holds(key: string): boolean {
    return this.kept?.has(key) ?? false;
  }

  /** The kept listing of `key` when it is of `version`. */
  get(key: string, version: string | undefined): readonly ListingEntry[] | undefined {
    if (version === undefined || this.kept === undefined) return undefined;
    const kept = this.kept.get(key);
    return kept?.version === version ? kept.entries : undefined;
  }

  /** Keeps a listing read together with its version (undefined: the writer keeps none, nothing is kept). */
  set(key: string, version: string | undefined, entries: readonly ListingEntry[], members: readonly string[]): void {
    if (this.kept === undefined) return;
    if (version === undefined) {
      this.kept.delete(key);
      return;
    }
    let size = ENTRY_OVERHEAD;
    for (const member of members) size += member.length + ENTRY_OVERHEAD;
    // lru-cache refuses (and drops any older entry of the key) what exceeds the whole budget.
    this.kept.set(key, { version, entries, size });
  }
}
