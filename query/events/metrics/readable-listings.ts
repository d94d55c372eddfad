/**
 * What every metric listing operation (events.md §3) reads first.
 */
import type { QueryDeps } from '../../query-deps.js';
import type { Namespace } from '../store/entity-access.js';

/**
 * The listings of `ids` (distinct) once every requested entity is known readable: with the entity
 * check in one Redis round trip, or the check alone while this process keeps the listing's current
 * version (metric-listing.ts `readable`).
 */
export function readableListings(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  requested: readonly string[],
  ids: readonly string[],
) {
  return deps.listings.readable(deps.entities, company, namespace, requested, ids);
}
