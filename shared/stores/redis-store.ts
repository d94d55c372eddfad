/**
 * The Redis client of a process. Commands fail at once while Redis is
 * unreachable (no offline queue) and after `commandTimeoutMs` when it does
 * not answer (redis-command-deadline.ts): callers answer an error instead of
 * hanging. A connection that stays silent for twice the timeout, although
 * pinged, is dropped and made again.
 */
import { createClient } from 'redis';
import type { Logger } from '../observability/logger.js';
import { guardCommands } from './redis-command-deadline.js';
import type { StoreCalls } from './store-calls.js';

export type RedisClient = ReturnType<typeof createClient>;

export interface RedisStore {
  readonly client: RedisClient;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface RedisStoreOptions {
  url: string;
  commandTimeoutMs: number;
  /** Where every command's duration and errors are recorded. */
  calls?: StoreCalls;
}

export async function connectRedis(options: RedisStoreOptions, logger: Logger): Promise<RedisStore> {
  const { commandTimeoutMs } = options;
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    // Drops a command still waiting to be written when its time is up (the deadline guard covers written ones).
    commandOptions: { timeout: commandTimeoutMs },
    // Keeps a healthy idle connection from reaching socketTimeout; a silent one reaches it.
    pingInterval: Math.max(100, Math.floor(commandTimeoutMs / 2)),
    socket: {
      connectTimeout: commandTimeoutMs,
      socketTimeout: 2 * commandTimeoutMs,
      reconnectStrategy: (retries) => Math.min(50 * (retries + 1), 2_000),
    },
  });
  guardCommands(client, commandTimeoutMs, options.calls);
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
