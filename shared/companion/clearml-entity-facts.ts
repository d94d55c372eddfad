/**
 * Entity facts from the ClearML server (companion mode): the ids missing
 * from the cache are asked in one call per namespace (chunked at ClearML's
 * page size), with the credential of the call being served. What the
 * ClearML server returns is filtered again by company: a record of another
 * company, or a public one, counts as nonexistent whatever the server
 * answered (tenant isolation does not rest on the other server alone).
 */
import type { EntityFact, EntityFactsSource, FactNamespace } from '../entities/entity-facts.js';
import { callerCredential } from './caller-credential.js';
import type { ClearmlClient } from './clearml-client.js';
import type { FactsCache } from './facts-cache.js';

export class ClearmlEntityFacts implements EntityFactsSource {
  constructor(
    private readonly client: ClearmlClient,
    private readonly cache: FactsCache,
  ) {}

  async facts(
    company: string,
    namespace: FactNamespace,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, EntityFact>> {
    const found = new Map<string, EntityFact>();
    const missing: string[] = [];
    for (const id of new Set(ids)) {
      if (typeof id !== 'string' || id === '') continue;
      const fact = this.cache.get(company, namespace, id);
      if (fact === undefined) missing.push(id);
      else found.set(id, fact);
    }
    if (missing.length > 0) {
      const asked = new Set(missing);
      for (const fact of await this.client.entities(namespace, missing, callerCredential())) {
        if (fact.company !== company || !asked.has(fact.id)) continue;
        this.cache.set(company, namespace, fact);
        found.set(fact.id, fact);
      }
    }
    return found;
  }
}
