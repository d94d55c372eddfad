/**
 * What the query target's operations need, built once by its composition
 * root. Store clients are reached through getters because they exist only
 * after the store components started.
 */
import type { NatsConnection } from 'nats';
import type { Config } from '../shared/config/config.js';
import type { StoreHub } from '../shared/launcher/store-hub.js';
import type { Logger } from '../shared/observability/logger.js';
import type { InfluxStore } from '../shared/stores/influx-store.js';
import type { RedisClient } from '../shared/stores/redis-store.js';
import type { StoreCalls } from '../shared/stores/store-calls.js';
import { companionFacts, companionProjectNames } from '../shared/companion/companion-mode.js';
import type { ProjectNamesSource } from '../shared/companion/clearml-project-names.js';
import type { EntityFactsSource } from '../shared/entities/entity-facts.js';
import { CompanionEntityAccess } from './events/store/companion-entity-access.js';
import { EntityAccess } from './events/store/entity-access.js';
import { ListingCache } from './events/store/listing-cache.js';
import { MetricListings } from './events/store/metric-listing.js';

export class QueryDeps {
  private entityAccess?: EntityAccess;
  private metricListings?: MetricListings;

  constructor(
    readonly config: Readonly<Config>,
    readonly logger: Logger,
    private readonly stores: StoreHub,
    /** Server secret for signed cursors (shared by every process of a deployment). */
    readonly signingSecret: string,
  ) {}

  get redis(): RedisClient {
    return this.stores.redis.client;
  }

  get influx(): InfluxStore {
    return this.stores.influx;
  }

  /** Where adapters of the query target record their store calls (shared/stores/store-calls.ts). */
  get storeCalls(): StoreCalls {
    return this.stores.calls;
  }

  get nats(): NatsConnection {
    return this.stores.nats.connection;
  }

  /** Redis key prefix of this deployment. */
  get keyPrefix(): string {
    return this.config.REDIS_KEY_PREFIX;
  }

  /** Task and model facts of the ClearML server in companion mode; undefined standalone. */
  get entityFacts(): EntityFactsSource | undefined {
    return companionFacts(this.config);
  }

  /** Names of the ClearML server's projects in companion mode; undefined standalone. */
  get projectNames(): ProjectNamesSource | undefined {
    return companionProjectNames(this.config);
  }

  get entities(): EntityAccess {
    if (this.entityAccess === undefined) {
      const facts = this.entityFacts;
      this.entityAccess = facts
        ? new CompanionEntityAccess(this.redis, this.config.REDIS_KEY_PREFIX, facts)
        : new EntityAccess(this.redis, this.config.REDIS_KEY_PREFIX);
    }
    return this.entityAccess;
  }

  /** The metric listings, with what this process keeps of them (LISTING_CACHE_BYTES): one per process. */
  get listings(): MetricListings {
    this.metricListings ??= new MetricListings(
      () => this.redis,
      this.config.REDIS_KEY_PREFIX,
      new ListingCache(this.config.LISTING_CACHE_BYTES),
    );
    return this.metricListings;
  }
}
