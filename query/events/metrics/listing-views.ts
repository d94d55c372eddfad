/**
 * Answers computed from a listing, once per listing read. The §3 answers
 * are functions of an entity's listing (and the event type asked for); a
 * listing kept by the query process (store/listing-cache.ts) is the same
 * array on every read while its version holds, so a task with 10,000
 * variants costs a read its answer, not a pass over every variant and a
 * sort each time. A listing read afresh is a new array: its views are
 * computed again. Views live as long as their listing (a WeakMap) and are
 * shared by every read of it: never change one.
 */
import type { ListingEntry } from '../store/metric-listing.js';

const views = new WeakMap<readonly ListingEntry[], Map<string, unknown>>();

/** The view `name` of `entries` (names are ours: an operation and an event type, a finite set). */
export function listingView<T>(entries: readonly ListingEntry[], name: string, compute: () => T): T {
  let ofListing = views.get(entries);
  if (ofListing === undefined) views.set(entries, (ofListing = new Map()));
  if (ofListing.has(name)) return ofListing.get(name) as T;
  const view = compute();
  ofListing.set(name, view);
  return view;
}
