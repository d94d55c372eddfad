/**
 * The Redis Cluster client (node-redis createCluster) with the single
 * client's guarantees, per node: each node connection has the command
 * deadline and breaker of redis-command-deadline.ts, refuses commands while
 * it is down (no offline queue), and connecting to a node is bounded by the
 * command timeout too.
 *
 * Three things node-redis 5.12 does not do on its own, found reading its
 * cluster code (lib/cluster/cluster-slots.js):
 * - It learns a new topology only from MOVED/ASK replies. A master that dies
 *   answers nothing, so after its replica took over, the client would keep
 *   sending that slot range to the dead address. So every node error
 *   (failed reconnection) triggers a topology refresh, at most once a second.
 * - Connecting a node client retries until it succeeds; with eager
 *   connections (its default) a topology refresh that lists a dead master
 *   waits for it forever. So connections are made on first use
 *   (minimizeConnections) and that wait is cut at the command timeout.
 * - SCRIPT LOAD goes to one random node (lua-script.ts falls back to EVAL).
 *
 * MOVED, ASK, TRYAGAIN and CLUSTERDOWN are handled as follows: MOVED and ASK
 * are followed by node-redis (up to 16 redirections); TRYAGAIN and
 * CLUSTERDOWN reach the caller, which treats them as transient (503,
 * store-errors.ts), like a node that is down.
 */
import { createCluster } from 'redis';
import type { Logger } from '../observability/logger.js';
import { withDeadline } from './deadline.js';
import { guardCommands, type GuardedClient } from './redis-command-deadline.js';
import { connectionOptions, errorLogger } from './redis-connection-options.js';
import type { RedisStore } from './redis-store.js';
import type { StoreCalls } from './store-calls.js';
import { StoreUnavailableError } from './store-errors.js';

/** Shortest time between two topology refreshes caused by node errors. */
const REFRESH_INTERVAL_MS = 1_000;

interface ClusterNode {
  address: string;
}

/** The node-redis internals used here; start-up fails if an upgrade renames them. */
interface ClusterSlots {
  nodeClient(node: ClusterNode): Promise<GuardedClient>;
  rediscover(startWith: { options: { url: string } }): Promise<void>;
}

export async function connectRedisCluster(options: { urls: string[]; commandTimeoutMs: number; calls?: StoreCalls }, logger: Logger): Promise<RedisStore> {
  const { urls, commandTimeoutMs } = options;
  const cluster = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: connectionOptions(commandTimeoutMs),
    commandOptions: { timeout: commandTimeoutMs },
    minimizeConnections: true,
  });
  const slots = (cluster as unknown as { _slots?: ClusterSlots })._slots;
  if (typeof slots?.nodeClient !== 'function' || typeof slots.rediscover !== 'function') {
    throw new Error('node-redis cluster internals changed: the Redis command deadline cannot be installed (check the redis package version)');
  }

  const guarded = new WeakSet<object>();
  const nodeClient = slots.nodeClient.bind(slots);
  slots.nodeClient = (node) =>
    withDeadline(nodeClient(node), commandTimeoutMs, () => new StoreUnavailableError('redis', `Redis node ${node.address} did not connect within ${commandTimeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`)).then((client) => {
      if (!guarded.has(client)) {
        guarded.add(client);
        guardCommands(client, commandTimeoutMs, options.calls);
      }
      return client;
    });

  let lastRefresh = 0;
  let seed = 0;
  const refreshTopology = () => {
    if (Date.now() - lastRefresh < REFRESH_INTERVAL_MS || !cluster.isOpen) return;
    lastRefresh = Date.now();
    // Starts with a seed node; node-redis tries the others when it does not answer.
    const url = urls[seed++ % urls.length]!;
    slots.rediscover({ options: { url } }).catch((error: unknown) => logger.warn({ err: error }, 'redis cluster topology refresh failed'));
  };
  const errors = errorLogger(logger, 'redis cluster error');
  cluster.on('error', errors.onError);
  cluster.on('node-error', (error: Error, node: { host: string; port: number }) => {
    errors.onError(new Error(`${node.host}:${node.port}: ${error.message}`));
    refreshTopology();
  });
  cluster.on('node-ready', errors.onReady);
  await cluster.connect();
  return {
    client: cluster,
    async ping() {
      // Every master: a slot range whose master is gone is a Redis that cannot serve.
      await Promise.all(cluster.masters.map(async (master) => (await cluster.nodeClient(master)).ping()));
    },
    async close() {
      if (cluster.isOpen) await cluster.close().catch(() => cluster.destroy());
    },
  };
}
