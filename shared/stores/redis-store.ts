/**
 * The Redis client of a process. Commands fail at once while Redis is
 * unreachable (no offline queue): callers answer an error instead of hanging.
 */
import { createClient } from 'redis';
import type { Logger } from '../observability/logger.js';

export type RedisClient = ReturnType<typeof createClient>;

export interface RedisStore {
  readonly client: RedisClient;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export async function connectRedis(url: string, logger: Logger, timeoutMs = 30_000): Promise<RedisStore> {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries) => Math.min(50 * (retries + 1), 2_000) },
  });
  let lastError = '';
  client.on('error', (error: Error) => {
    if (error.message !== lastError) logger.warn({ err: error }, 'redis error');
    lastError = error.message;
  });
  client.on('ready', () => (lastError = ''));
  await client.connect();
  return {
    client,
    async ping() {
      await client.ping();
    },
    async close() {
      if (client.isOpen) await client.quit().catch(() => client.destroy());
    },
  };
}
