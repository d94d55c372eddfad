/**
 * What every metric listing operation (events.md §3) reads first.
 */
import type { QueryDeps } from '../../query-deps.js';
import type { Namespace } from '../store/entity-access.js';
import { MetricListings } from '../store/metric-listing.js';

/** The listings of `ids` once every requested entity is known readable; both read at once (one Redis round trip). */
export async function readableListings(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  requested: readonly string[],
  ids: readonly string[],
) {
  const [, perEntity] = await Promise.all([
    deps.entities.requireReadable(company, namespace, requested),
    new MetricListings(deps.redis, deps.keyPrefix).of(company, namespace, ids),
  ]);
  return perEntity;
}
