/**
 * Response objects keyed by user-chosen names (metrics, variants, ids):
 * without a prototype, so a metric named `__proto__` or `constructor` is
 * just another key.
 */
export function plainMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
