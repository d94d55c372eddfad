/**
 * Entity facts kept for a short time (CLEARML_FACTS_TTL_MS) and in bounded
 * number (CLEARML_FACTS_CACHE_SIZE), keyed by company, namespace and id: one
 * company's answer is never served to another. Only ids the ClearML server
 * knows are kept; an unknown id is asked again next time, because a task
 * created a moment ago (Task.init, then its first events) must not stay
 * unknown for a whole expiry. A map in insertion order gives the eviction
 * order: refreshed entries move to the end, the oldest go first.
 */
import type { EntityFact, FactNamespace } from '../entities/entity-facts.js';

interface Entry {
  fact: EntityFact;
  expiresAt: number;
}

export class FactsCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(company: string, namespace: FactNamespace, id: string): EntityFact | undefined {
    const key = keyOf(company, namespace, id);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.fact;
  }

  set(company: string, namespace: FactNamespace, fact: EntityFact): void {
    const key = keyOf(company, namespace, fact.id);
    this.entries.delete(key);
    this.entries.set(key, { fact, expiresAt: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

// JSON keeps the parts apart whatever characters a client puts in an id.
const keyOf = (company: string, namespace: FactNamespace, id: string) => JSON.stringify([company, namespace, id]);
