/**
 * Companion mode is on when CLEARML_SERVER_URL names a ClearML API server
 * (docs/clearml-companion.md). One facts source per process, shared by the
 * targets it runs, so that ingest and reads use one cache.
 */
import type { Config } from '../config/config.js';
import type { EntityFactsSource } from '../entities/entity-facts.js';
import { ClearmlClient } from './clearml-client.js';
import { ClearmlEntityFacts } from './clearml-entity-facts.js';
import { ClearmlProjectNames, type ProjectNamesSource } from './clearml-project-names.js';
import { FactsCache } from './facts-cache.js';

interface CompanionSources {
  facts: EntityFactsSource;
  projectNames: ProjectNamesSource;
}

const perConfig = new WeakMap<object, CompanionSources>();

function sources(config: Readonly<Config>): CompanionSources | undefined {
  if (!config.CLEARML_SERVER_URL) return undefined;
  let found = perConfig.get(config);
  if (found === undefined) {
    const client = new ClearmlClient(config.CLEARML_SERVER_URL, config.CLEARML_TIMEOUT_MS);
    found = {
      facts: new ClearmlEntityFacts(
        client,
        new FactsCache(config.CLEARML_FACTS_TTL_MS, config.CLEARML_FACTS_CACHE_SIZE),
      ),
      projectNames: new ClearmlProjectNames(client),
    };
    perConfig.set(config, found);
  }
  return found;
}

/** The ClearML-backed facts source, or undefined when the service runs standalone. */
export function companionFacts(config: Readonly<Config>): EntityFactsSource | undefined {
  return sources(config)?.facts;
}

/** ClearML project names (reports put into a ClearML project by id), or undefined standalone. */
export function companionProjectNames(config: Readonly<Config>): ProjectNamesSource | undefined {
  return sources(config)?.projectNames;
}
