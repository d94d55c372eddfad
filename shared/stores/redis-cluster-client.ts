/**
 * The Redis Cluster client (node-redis createCluster) with the single
 * client's guarantees, per node: each node connection has the command
 * deadline and breaker of redis-command-deadline.ts, refuses commands while
 * it is down (no offline queue), and connecting to a node is bounded by the
 * command timeout too.
 *
 * Four things node-redis 5.12 does not do on its own, found reading its
 * cluster code (lib/cluster/cluster-slots.js, lib/cluster/index.js):
 * - It learns a new topology only from MOVED/ASK replies. A master that dies
 *   answers nothing, so after its replica took over, the client would keep
 *   sending that slot range to the dead address. So every node error
 *   (failed reconnection) triggers a topology refresh, at most once a second.
 * - Connecting a node client retries until it succeeds; with eager
 *   connections (its default) a topology refresh that lists a dead master
 *   waits for it forever. So connections are made on first use
 *   (minimizeConnections) and that wait is cut at the command timeout.
 * - SCRIPT LOAD goes to one random node (lua-script.ts falls back to EVAL).
 * - MULTI and pipelines (`multi().exec()`, `execAsPipeline()`) go to the
 *   slot's master as last known and do not follow MOVED: after a failover
 *   whose old master came back as a replica (it answers, so no node error
 *   refreshes the topology), every transaction of its slots got MOVED for
 *   as long as the process ran (fault bench, redis master kill). So they
 *   are sent through redirectedMulti below, which learns the topology from
 *   the node that answered MOVED and sends them again, like a single
 *   command. A redirected node ran none of them (a node refuses, at queue
 *   time, keys of slots it does not serve), so sending them again is safe.
 *
 * MOVED, ASK, TRYAGAIN and CLUSTERDOWN are handled as follows: MOVED is
 * followed (up to 16 redirections), ASK too for single commands (a slot
 * being migrated, which this service never does); TRYAGAIN and CLUSTERDOWN,
 * and a redirection not followed, reach the caller, which treats them as
 * transient (503, store-errors.ts), like a node that is down.
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
/** As node-redis for single commands (maxCommandRedirections). */
const MAX_REDIRECTIONS = 16;

interface ClusterNode {
  address: string;
}

/** A node client as the cluster code drives it (queued commands are opaque here). */
interface NodeClient extends GuardedClient {
  options?: unknown;
  _executeMulti(commands: unknown[]): Promise<unknown[]>;
  _executePipeline(commands: unknown[]): Promise<unknown[]>;
}

/** The node-redis internals used here; start-up fails if an upgrade renames them. */
interface ClusterSlots {
  nodeClient(node: ClusterNode): Promise<GuardedClient>;
  rediscover(startWith: { options?: unknown }): Promise<void>;
  getClientAndSlotNumber(firstKey: unknown, isReadonly: boolean): Promise<{ client: NodeClient }>;
}

type QueuedExecutor = (firstKey: unknown, isReadonly: boolean, commands: unknown[]) => Promise<unknown[]>;

interface ClusterInternals {
  _slots?: ClusterSlots;
  Multi?: new (
    executeMulti: QueuedExecutor,
    executePipeline: QueuedExecutor,
    routing: unknown,
    typeMapping: unknown,
  ) => unknown;
  _commandOptions?: { typeMapping?: unknown };
  multi?: unknown;
  MULTI?: unknown;
}

/** cluster.multi() whose transactions and pipelines follow MOVED like single commands. */
function redirectedMulti(internals: ClusterInternals, slots: ClusterSlots): (routing?: unknown) => unknown {
  const Multi = internals.Multi!;
  const send = async (firstKey: unknown, isReadonly: boolean, run: (client: NodeClient) => Promise<unknown[]>) => {
    for (let redirections = 0; ; redirections++) {
      const { client } = await slots.getClientAndSlotNumber(firstKey, isReadonly);
      try {
        return await run(client);
      } catch (error) {
        if (redirections >= MAX_REDIRECTIONS || !(error instanceof Error) || !error.message.startsWith('MOVED'))
          throw error;
        await slots.rediscover(client);
      }
    }
  };
  return (routing) =>
    new Multi(
      (firstKey, isReadonly, commands) => send(firstKey, isReadonly, (client) => client._executeMulti(commands)),
      (firstKey, isReadonly, commands) => send(firstKey, isReadonly, (client) => client._executePipeline(commands)),
      routing,
      internals._commandOptions?.typeMapping,
    );
}

export async function connectRedisCluster(
  options: { urls: string[]; commandTimeoutMs: number; calls?: StoreCalls },
  logger: Logger,
): Promise<RedisStore> {
  const { urls, commandTimeoutMs } = options;
  const cluster = createCluster({
    rootNodes: urls.map((url) => ({ url })),
    defaults: connectionOptions(commandTimeoutMs),
    commandOptions: { timeout: commandTimeoutMs },
    minimizeConnections: true,
  });
  const internals = cluster as unknown as ClusterInternals;
  const slots = internals._slots;
  if (
    typeof slots?.nodeClient !== 'function' ||
    typeof slots.rediscover !== 'function' ||
    typeof slots.getClientAndSlotNumber !== 'function' ||
    typeof internals.Multi !== 'function'
  ) {
    throw new Error(
      'node-redis cluster internals changed: the Redis command deadline and redirections cannot be installed (check the redis package version)',
    );
  }
  internals.multi = internals.MULTI = redirectedMulti(internals, slots);

  const guarded = new WeakSet<object>();
  const nodeClient = slots.nodeClient.bind(slots);
  slots.nodeClient = (node) =>
    withDeadline(
      nodeClient(node),
      commandTimeoutMs,
      () =>
        new StoreUnavailableError(
          'redis',
          `Redis node ${node.address} did not connect within ${commandTimeoutMs} ms (REDIS_COMMAND_TIMEOUT_MS)`,
        ),
    ).then((client) => {
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
    slots
      .rediscover({ options: { url } })
      .catch((error: unknown) => logger.warn({ err: error }, 'redis cluster topology refresh failed'));
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
