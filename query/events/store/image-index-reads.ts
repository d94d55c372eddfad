/**
 * A fresh events.debug_images page from the image index the writer keeps
 * (shared/events/image-index.ts): per selected variant, the images of its
 * newest iterations, which name the file series and iterations the page's
 * events are read from, and its last_invalid_iteration. Undefined when the
 * index cannot answer for every selected variant (an entity with images
 * from before the index, a variant with more iterations beyond what is
 * kept than the page needs): the page is then read from InfluxDB alone.
 */
import {
  IMAGE_INDEX_MARKER,
  type IndexedIteration,
  type StoredVariantIndex,
} from '../../../shared/events/image-index.js';
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { MetricFilter } from '../common/metric-variants.js';
import type { QueryDeps } from '../../query-deps.js';
import type { Namespace } from './entity-access.js';
import type { EventPosition } from './plot-image-influx.js';

export interface IndexedNewest {
  /** The images of each variant's `iters` + 1 newest iterations (all of them when it has fewer): narrow rows. */
  readonly rows: EventPosition[];
  /** Per variant (JSON [metric, variant]) its last_invalid_iteration (null: none), when the index knows it. */
  readonly lastInvalid: ReadonlyMap<string, number | null>;
}

export async function indexedNewest(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  task: string,
  filter: MetricFilter,
  iters: number,
): Promise<IndexedNewest | undefined> {
  // InfluxDB reads such names as UTF-8 does (U+FFFD); the index compares them as sent.
  if (filter.metrics.some(({ metric, variants }) => [metric, ...(variants ?? [])].some(notWellFormed)))
    return undefined;
  const stored = await deps.redis.hGetAll(redisKeys(deps.keyPrefix).imageIndex(company, namespace, task));
  if (stored[IMAGE_INDEX_MARKER] !== '1') return undefined;
  const rows: EventPosition[] = [];
  const lastInvalid = new Map<string, number | null>();
  for (const [field, text] of Object.entries(stored)) {
    if (field === IMAGE_INDEX_MARKER) continue;
    const [metric, variant] = JSON.parse(field) as [string, string];
    if (!filter.matches(metric, variant)) continue;
    const index = JSON.parse(text) as StoredVariantIndex;
    const iterations: IndexedIteration[] = Array.isArray(index.it) ? index.it : [];
    // Iterations at or below `b` are not kept: the page needs iters + 1 above it, or none below.
    if (index.b !== undefined && iterations.length <= iters) return undefined;
    for (const [iterText, uses] of iterations.slice(0, iters + 1)) {
      const iter = Number(iterText);
      for (const [key, url] of uses)
        rows.push({
          metric,
          variant,
          iter,
          url,
          // Keys as stored, like InfluxDB answers them ('' for none).
          fields: { k: key === '' ? null : key, u: url },
        });
    }
    if (index.li !== undefined) lastInvalid.set(field, index.li === false ? null : Number(index.li));
  }
  return { rows, lastInvalid };
}

/** ES2024's String.prototype.isWellFormed (Node 20), beyond the project's ES2023 lib. */
const notWellFormed = (name: string): boolean => !(name as string & { isWellFormed(): boolean }).isWellFormed();
