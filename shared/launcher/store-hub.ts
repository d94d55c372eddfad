/**
 * Store clients of one process, created on demand: a target asks for the
 * stores it needs while it is composed, and only those are connected (at
 * start) and checked by /ready. Every call of every client has a timeout
 * (REDIS_COMMAND_TIMEOUT_MS, INFLUX_TIMEOUT_MS, NATS_REQUEST_TIMEOUT_MS).
 */
import type { Config } from '../config/config.js';
import type { Logger } from '../observability/logger.js';
import type { Registry } from '../observability/metrics.js';
import { createStoreCalls, type StoreCalls } from '../stores/store-calls.js';
import { influxStoreFor, type InfluxStore } from '../stores/influx-store.js';
import { connectNats, type NatsStore } from '../stores/nats-store.js';
import { connectRedis, type RedisStore } from '../stores/redis-store.js';
import type { Component, ReadinessCheck } from './component.js';

type StoreName = 'nats' | 'redis' | 'influx';

export class StoreHub {
  private natsStore?: NatsStore;
  private redisStore?: RedisStore;
  private influxStore?: InfluxStore;
  private readonly wanted = new Set<StoreName>();
  /** Durations and errors of the calls of every client (and of adapters of the targets that time their own calls). */
  readonly calls: StoreCalls;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly processName: string,
    metrics: Registry,
  ) {
    this.calls = createStoreCalls(metrics);
  }

  /** Declares that this process needs the store; its client exists after start(). */
  need(...names: StoreName[]): this {
    for (const name of names) this.wanted.add(name);
    return this;
  }

  get nats(): NatsStore {
    if (!this.natsStore) throw new Error('NATS is not connected (declare it with need("nats") and start first)');
    return this.natsStore;
  }

  get redis(): RedisStore {
    if (!this.redisStore) throw new Error('Redis is not connected (declare it with need("redis") and start first)');
    return this.redisStore;
  }

  get influx(): InfluxStore {
    if (!this.influxStore) throw new Error('InfluxDB is not set up (declare it with need("influx") and start first)');
    return this.influxStore;
  }

  components(): Component[] {
    const out: Component[] = [];
    const { config, logger } = this;
    if (this.wanted.has('nats')) {
      out.push({
        name: 'nats',
        phase: 'store',
        start: async () => {
          this.natsStore = await connectNats(
            { url: config.NATS_URL, name: this.processName, requestTimeoutMs: config.NATS_REQUEST_TIMEOUT_MS },
            logger,
          );
        },
        stop: async () => this.natsStore?.close(),
      });
    }
    if (this.wanted.has('redis')) {
      out.push({
        name: 'redis',
        phase: 'store',
        start: async () => {
          this.redisStore = await connectRedis(
            {
              url: config.REDIS_URL,
              cluster: config.REDIS_CLUSTER,
              commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
              calls: this.calls,
            },
            logger,
          );
        },
        stop: async () => this.redisStore?.close(),
      });
    }
    if (this.wanted.has('influx')) {
      out.push({
        name: 'influx',
        phase: 'store',
        start: async () => {
          const store = influxStoreFor(config, this.calls);
          await store.ping();
          await store.ensureDatabase();
          this.influxStore = store;
        },
        stop: async () => undefined,
      });
    }
    return out;
  }

  readinessChecks(): ReadinessCheck[] {
    const checks: ReadinessCheck[] = [];
    if (this.wanted.has('nats')) checks.push({ name: 'nats', check: () => this.nats.ping() });
    if (this.wanted.has('redis')) checks.push({ name: 'redis', check: () => this.redis.ping() });
    if (this.wanted.has('influx')) checks.push({ name: 'influx', check: () => this.influx.ping() });
    return checks;
  }
}
