/**
 * Companion mode is on when CLEARML_SERVER_URL names a ClearML API server
 * (docs/clearml-companion.md). One facts source per process, shared by the
 * targets it runs, so that ingest and reads use one cache.
 */
import type { Config } from '../config/config.js';
import type { EntityFactsSource } from '../entities/entity-facts.js';
import { ClearmlClient } from './clearml-client.js';
import { ClearmlEntityFacts } from './clearml-entity-facts.js';
import { FactsCache } from './facts-cache.js';

const perConfig = new WeakMap<object, EntityFactsSource>();

/** The ClearML-backed facts source, or undefined when the service runs standalone. */
export function companionFacts(config: Readonly<Config>): EntityFactsSource | undefined {
  if (!config.CLEARML_SERVER_URL) return undefined;
  let facts = perConfig.get(config);
  if (facts === undefined) {
    facts = new ClearmlEntityFacts(
      new ClearmlClient(config.CLEARML_SERVER_URL, config.CLEARML_TIMEOUT_MS),
      new FactsCache(config.CLEARML_FACTS_TTL_MS, config.CLEARML_FACTS_CACHE_SIZE),
    );
    perConfig.set(config, facts);
  }
  return facts;
}
