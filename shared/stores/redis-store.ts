/**
 * The Redis client of a process: one server, or a Redis Cluster when
 * REDIS_URL lists several nodes or REDIS_CLUSTER is set (redis-cluster-client.ts).
 * Either way, commands fail at once while their node is unreachable (no
 * offline queue) and after `commandTimeoutMs` when it does not answer
 * (redis-command-deadline.ts): callers answer an error instead of hanging.
 * A connection that stays silent for twice the timeout, although pinged, is
 * dropped and made again.
 */
import { createClient, createCluster } from 'redis';
import { urlList } from '../config/url-list.js';
import type { Logger } from '../observability/logger.js';
import { connectRedisCluster } from './redis-cluster-client.js';
import { connectionOptions, errorLogger } from './redis-connection-options.js';
import { guardCommands } from './redis-command-deadline.js';
import type { StoreCalls } from './store-calls.js';

export type RedisSingleClient = ReturnType<typeof createClient>;
export type RedisClusterClient = ReturnType<typeof createCluster>;
/** What the code base talks to: both kinds take the same command methods. */
export type RedisClient = RedisSingleClient | RedisClusterClient;

export interface RedisStore {
  readonly client: RedisClient;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface RedisStoreOptions {
  /** One URL, or a comma-separated list of cluster seed nodes. */
  url: string;
  /** A Redis Cluster even when `url` names one seed node. */
  cluster?: boolean;
  commandTimeoutMs: number;
  /** Where every command's duration and errors are recorded. */
  calls?: StoreCalls;
}

export function isRedisCluster(client: RedisClient): client is RedisClusterClient {
  return 'masters' in client;
}

export async function connectRedis(options: RedisStoreOptions, logger: Logger): Promise<RedisStore> {
  const urls = urlList(options.url);
  if (urls.length > 1 || options.cluster)
    return connectRedisCluster({ urls, commandTimeoutMs: options.commandTimeoutMs, calls: options.calls }, logger);
  const { commandTimeoutMs } = options;
  const client = createClient({
    url: urls[0],
    // No node-redis commandOptions.timeout: it arms an AbortSignal.timeout per command (~15-25 µs, a
    // tenth of a metric listing's read), and the deadline guard below already answers every command,
    // written or not, within the same time (docs/configuration.md, "Store timeouts").
    ...connectionOptions(commandTimeoutMs),
  });
  guardCommands(client, commandTimeoutMs, options.calls);
  const errors = errorLogger(logger, 'redis error');
  client.on('error', errors.onError);
  client.on('ready', errors.onReady);
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

/**
 * One command given as its arguments, routed by `key` on a cluster (the
 * two clients' sendCommand differ only in that). `readonly` lets a cluster
 * client send it to a replica when configured to.
 */
export function sendKeyedCommand<T>(
  client: RedisClient,
  key: string,
  readonly: boolean,
  args: string[],
  options?: Parameters<RedisSingleClient['sendCommand']>[1],
): Promise<T> {
  if (isRedisCluster(client)) return client.sendCommand<T>(key, readonly, args, options);
  return client.sendCommand<T>(args, options);
}
