/**
 * A map keyed by two strings without building a composite key string per
 * lookup: the ingest hot path looks one up per event (metric, variant).
 */
export class NestedKeyMap<V> {
  private readonly outer = new Map<string, Map<string, V>>();

  get(a: string, b: string): V | undefined {
    return this.outer.get(a)?.get(b);
  }

  set(a: string, b: string, value: V): void {
    let inner = this.outer.get(a);
    if (inner === undefined) this.outer.set(a, (inner = new Map()));
    inner.set(b, value);
  }

  *values(): IterableIterator<V> {
    for (const inner of this.outer.values()) yield* inner.values();
  }
}
