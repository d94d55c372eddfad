/**
 * A Redis client for tests that seed or inspect keys directly: the
 * service's own client (shared/stores/redis-store.ts), so a comma-separated
 * REDIS_URL (the cluster pass) gives a Redis Cluster client.
 */
import { createLogger } from '../../shared/observability/logger.js';
import { connectRedis, type RedisClient } from '../../shared/stores/redis-store.js';

export interface TestRedis {
  readonly client: RedisClient;
  close(): Promise<void>;
}

export async function connectTestRedis(url: string): Promise<TestRedis> {
  const store = await connectRedis(
    { url, commandTimeoutMs: 10_000 },
    createLogger({ level: 'silent', name: 'test-redis' }),
  );
  return { client: store.client, close: () => store.close() };
}
