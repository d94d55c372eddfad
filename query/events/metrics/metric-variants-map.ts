/**
 * Listing metrics (events.md §3): answered from the metric listing sets the
 * writer maintains, one SMEMBERS per entity, never a scan of events. The
 * pure shaping of a listing shared by the §3 operations.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import type { EventType } from '../common/event-read-fields.js';
import type { ListingEntry } from '../store/metric-listing.js';

/** metric -> variants, both ascending by name. */
export function metricVariantsMap(entries: Iterable<ListingEntry>): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const e of entries) {
    let variants = sets.get(e.metric);
    if (!variants) sets.set(e.metric, (variants = new Set()));
    variants.add(e.variant);
  }
  return new Map(
    [...sets.keys()].sort(compareCodePoints).map((metric) => [metric, [...sets.get(metric)!].sort(compareCodePoints)]),
  );
}

export const ofType = (type: EventType | undefined) => (e: ListingEntry) => type === undefined || e.type === type;
