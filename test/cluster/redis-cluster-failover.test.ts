// The Redis Cluster client of the service (shared/stores/redis-cluster-client.ts) after a slot range
// changed master (issue 12, item 4): the fault bench killed a master, its replica took over, and the
// old master came back as a replica; the query processes' MULTI and pipelines still went to it and
// got MOVED, answered as 500 for as long as the processes ran. Here the change of master is an
// operator's failback (CLUSTER FAILOVER on the replica): the old master stays up and answers MOVED,
// and no connection error ever tells the client that the topology changed.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterInfo, startRedisCluster, type RedisCluster } from '../../deploy/cluster-stack/redis-cluster.js';
import { findFreePort } from '../../deploy/local-stack/free-port.js';
import { ensureDebianPackages, ensureStackPackages, findBinary } from '../../deploy/local-stack/install-packages.js';
import type { ServerProcess } from '../../deploy/local-stack/server-process.js';
import { createLogger } from '../../shared/observability/logger.js';
import { connectRedis, type RedisStore } from '../../shared/stores/redis-store.js';
import { redisNodeCommand } from '../faults/cluster-health.js';
import { eventually } from '../harness/eventually.js';

let dataDir: string;
let cluster: RedisCluster;
const children: ServerProcess[] = [];
let store: RedisStore;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-redis-failover-'));
  const binaries = await ensureStackPackages(() => {});
  await ensureDebianPackages(() => {}, [{ name: 'redis-tools', present: () => findBinary('redis-cli') !== undefined }]);
  const ports = [];
  for (let i = 0; i < 6; i++) ports.push({ port: await findFreePort(), bus: await findFreePort() });
  cluster = await startRedisCluster({
    binary: binaries.redis!,
    cliBinary: findBinary('redis-cli')!,
    dataDir,
    ports,
    appendFsync: 'everysec',
    context: { timeoutMs: 60_000, restartOnExit: false, log: () => {}, onSpawned: (child) => children.push(child) },
  });
  store = await connectRedis(
    { url: cluster.url, commandTimeoutMs: 2_000 },
    createLogger({ level: 'silent', name: 'redis-failover-test' }),
  );
}, 120_000);

afterAll(async () => {
  await store?.close();
  await Promise.all(children.map((child) => child.stop()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function roleOf(port: number): Promise<Record<string, string>> {
  return clusterInfo(await redisNodeCommand(port, ['INFO', 'replication']));
}

/** Promotes the replica of `key`'s master with CLUSTER FAILOVER; answers once the old master is its replica. */
async function failOver(key: string): Promise<void> {
  const slot = Number(await redisNodeCommand(cluster.nodes[0]!.ports.port, ['CLUSTER', 'KEYSLOT', key]));
  // A replica appears in CLUSTER SLOTS once it is attached to its master, shortly after the cluster was made.
  const range = await eventually(
    async () => {
      const ranges = JSON.parse(await redisNodeCommand(cluster.nodes[0]!.ports.port, ['CLUSTER', 'SLOTS'])) as Array<
        [number, number, [string, number], [string, number]?]
      >;
      return ranges.find(([from, to]) => from <= slot && slot <= to);
    },
    (found) => found?.[3] !== undefined,
    { timeoutMs: 30_000, what: `a replica of slot ${slot}` },
  );
  const [masterPort, replicaPort] = [range![2][1], range![3]![1]];
  await redisNodeCommand(replicaPort, ['CLUSTER', 'FAILOVER']);
  await eventually(
    async () => [(await roleOf(masterPort)).role, (await roleOf(replicaPort)).role],
    ([was, is]) => was === 'slave' && is === 'master',
    { timeoutMs: 30_000, what: 'CLUSTER FAILOVER complete (old master a replica)' },
  );
}

describe('the Redis Cluster client after a slot range changed master', { timeout: 60_000 }, () => {
  it('sends MULTI and pipelines to the new master', async () => {
    const client = store.client;
    const key = '{c:failover}:record';
    await client.multi().set(key, 'before').exec();

    await failOver(key);

    // A transaction of the company's slot (as the query's entity and report stores send them).
    const answer = await client.multi().set(key, 'after').get(key).exec();
    expect(answer).toEqual(['OK', 'after']);
    const piped = await client.multi().get(key).execAsPipeline();
    expect(piped).toEqual(['after']);
  });
});
