/**
 * A Redis master answers a write before its replicas have it: a failover
 * right after would lose the write, and with it events the writer had
 * already acknowledged to JetStream. So when replicas exist, the writer
 * asks each master it wrote to for `WAIT <replicas> <timeout>` before it
 * acknowledges a batch. A master that answers fewer replicas than asked
 * fails the confirmation as a transient error: the caller writes the batch
 * again (every Redis write of the writer is idempotent) and asks again, so
 * after a failover the writes land on the new master too.
 *
 * REDIS_WAIT_REPLICAS: `auto` asks for one replica from a master that has
 * replicas connected (INFO replication, re-read every REPLICA_INFO_TTL_MS),
 * none from a master without; a number asks every master for that many;
 * 0 never waits.
 */
import calculateSlot from 'cluster-key-slot';
import { StoreUnavailableError } from '../../shared/stores/store-errors.js';
import type { RedisKeys } from '../../shared/stores/redis-keys.js';
import {
  isRedisCluster,
  sendKeyedCommand,
  type RedisClient,
  type RedisSingleClient,
} from '../../shared/stores/redis-store.js';
import type { WriteBatch } from './write-batch.js';

export type WaitReplicas = number | 'auto';

const REPLICA_INFO_TTL_MS = 10_000;

/** One Redis server the writer sends commands to: a WAIT or INFO goes to it alone. */
export interface ReplicatedNode {
  readonly name: string;
  command(args: string[]): Promise<unknown>;
}

/** The masters holding `keys`: one node for a single server, the owners of the keys' slots on a cluster. */
export type NodesOfKeys = (keys: Iterable<string>) => Promise<ReplicatedNode[]>;

export class ReplicaSync {
  private readonly connected = new Map<string, { replicas: number; readAt: number }>();

  constructor(
    private readonly nodesOf: NodesOfKeys,
    private readonly keys: RedisKeys,
    private readonly settings: { replicas: WaitReplicas; timeoutMs: number },
    private readonly clock: () => number = Date.now,
  ) {}

  /** Whether a batch must be confirmed: waiting is on, and the batch wrote to Redis. */
  needed(batch: Pick<WriteBatch, 'logs' | 'summaries'>): boolean {
    return this.settings.replicas !== 0 && (batch.logs.size > 0 || batch.summaries.length > 0);
  }

  /** Resolves once every master the batch wrote to has its writes on the replicas asked for. */
  async confirm(batch: Pick<WriteBatch, 'logs' | 'summaries'>): Promise<void> {
    if (!this.needed(batch)) return;
    await this.confirmKeys(batchRedisKeys(this.keys, batch));
  }

  /** Resolves once the masters of `keys` have this client's writes so far on the replicas asked for. */
  async confirmKeys(keys: Iterable<string>): Promise<void> {
    if (this.settings.replicas === 0) return;
    const nodes = await this.nodesOf(keys);
    await Promise.all(nodes.map((node) => this.confirmNode(node)));
  }

  private async confirmNode(node: ReplicatedNode): Promise<void> {
    const wanted =
      this.settings.replicas === 'auto' ? Math.min(1, await this.connectedReplicas(node)) : this.settings.replicas;
    if (wanted === 0) return;
    const reached = Number(await node.command(['WAIT', String(wanted), String(this.settings.timeoutMs)]));
    if (reached < wanted) {
      // A replica may have gone: read the count again before the next attempt.
      this.connected.delete(node.name);
      throw new StoreUnavailableError(
        'redis',
        `Redis ${node.name}: writes reached ${reached} of ${wanted} replicas within ${this.settings.timeoutMs} ms`,
      );
    }
  }

  private async connectedReplicas(node: ReplicatedNode): Promise<number> {
    const known = this.connected.get(node.name);
    if (known !== undefined && this.clock() - known.readAt < REPLICA_INFO_TTL_MS) return known.replicas;
    const info = String(await node.command(['INFO', 'replication']));
    const replicas = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
    this.connected.set(node.name, { replicas, readAt: this.clock() });
    return replicas;
  }
}

/** The masters of a single-server client: the one server. */
export function singleNode(client: RedisSingleClient, name = 'redis'): NodesOfKeys {
  const node: ReplicatedNode = { name, command: (args) => client.sendCommand(args) };
  return async () => [node];
}

/**
 * The masters holding `keys`, for either client. On a cluster each key's
 * commands are routed by the key to its slot's master (MOVED followed), one
 * node per distinct key: a master holding several of the keys is asked once
 * per key, which is correct but not minimal.
 */
export function nodesOfClient(client: RedisClient): NodesOfKeys {
  if (!isRedisCluster(client)) return singleNode(client);
  return async (keys) => {
    // One key per master: WAIT is a per-connection question, asked once of each master written to.
    const byMaster = new Map<string, string>();
    for (const key of keys) {
      const master = client.slots[calculateSlot(key)]?.master.address ?? `slot ${calculateSlot(key)}`;
      if (!byMaster.has(master)) byMaster.set(master, key);
    }
    return [...byMaster].map(([name, key]) => ({
      name,
      command: (args: string[]) => sendKeyedCommand(client, key, false, args),
    }));
  };
}

/** A key in each hash slot a batch's Redis writes touch: each task's log slot, each summary's company slot. */
function batchRedisKeys(keys: RedisKeys, batch: Pick<WriteBatch, 'logs' | 'summaries'>): string[] {
  const out = [...batch.logs.keys()].map((task) => keys.logSegmentCount(task));
  for (const company of new Set(batch.summaries.map((s) => s.summary.c))) out.push(keys.companyEntities(company, 't'));
  return out;
}
