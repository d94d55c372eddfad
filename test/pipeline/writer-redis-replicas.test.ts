// Issue 12 (scale out), item 2: with Redis replicas, the writer acknowledges a JetStream message only
// after its Redis writes reached a replica (WAIT), so that a failover loses nothing acknowledged.
// Its own master and replica (the shared test Redis has none): a stopped replica holds the
// acknowledgement back, and once it answers again the batch is stored exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../deploy/local-stack/free-port.js';
import { findBinary } from '../../deploy/local-stack/install-packages.js';
import { PartitionLeases } from '../../ingest/writer/partition-leases.js';
import { PartitionOwnership } from '../../ingest/writer/partition-ownership.js';
import { nodesOfClient, ReplicaSync } from '../../ingest/writer/replica-sync.js';
import { writerKeys } from '../../ingest/writer/writer-keys.js';
import { consumerName, partitionOf, streamName } from '../../shared/events/wire-format.js';
import { createLogger } from '../../shared/observability/logger.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { PipelineClient, type EventSpec } from './writer-fixtures.js';
import { eventually } from '../harness/eventually.js';

interface RedisNode {
  port: number;
  child: ChildProcess;
  client: ReturnType<typeof createClient>;
}

const dirs: string[] = [];
const nodes: RedisNode[] = [];
let harness: Harness;
let pipeline: PipelineClient;
let master: RedisNode;
let replica: RedisNode;

async function startRedis(extra: string[]): Promise<RedisNode> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-replica-test-'));
  dirs.push(dir);
  const port = await findFreePort();
  const child = spawn(
    findBinary('redis-server') ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...extra],
    { stdio: 'ignore' },
  );
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: () => 100 } });
  client.on('error', () => undefined);
  const node = { port, child, client };
  nodes.push(node);
  await eventually(async () => {
    try {
      if (!client.isOpen) await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }, undefined);
  return node;
}

const connectedReplicas = async () =>
  Number(/^connected_slaves:(\d+)/m.exec(await master.client.info('replication'))?.[1] ?? 0);

async function failedWaits(): Promise<number> {
  const metric = await harness.service.services.metrics
    .getSingleMetric('clearml_writer_replica_waits_failed_total')
    ?.get();
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
}

beforeAll(async () => {
  master = await startRedis([]);
  replica = await startRedis(['--replicaof', '127.0.0.1', String(master.port)]);
  await eventually(
    async () =>
      (await connectedReplicas()) === 1 && /^master_link_status:up/m.test(await replica.client.info('replication')),
    undefined,
    { timeoutMs: 15_000 },
  );
  harness = await startHarness({
    target: 'writer',
    env: { REDIS_URL: `redis://127.0.0.1:${master.port}`, REDIS_WAIT_TIMEOUT_MS: '300' },
  });
  pipeline = await PipelineClient.open(harness.config);
});

afterAll(async () => {
  await pipeline?.close();
  await harness?.stop();
  for (const node of nodes) {
    node.child.kill('SIGCONT');
    node.child.kill('SIGKILL');
    await node.client.disconnect().catch(() => undefined);
  }
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const COMPANY = 'replicated-co';
const log = (entity: string, timestamp: number, msg: string): EventSpec => ({
  type: 'log',
  entity,
  timestamp,
  msg,
  level: 'info',
});

describe('writer with a Redis replica (REDIS_WAIT_REPLICAS=auto)', () => {
  it('acknowledges a batch once its writes are on the replica', async () => {
    const task = unique('t');
    await pipeline.publishRequest(COMPANY, [log(task, 1_000, 'first')]);
    await pipeline.drained();
    expect(await pipeline.logEntries(task)).toHaveLength(1);
    // Acknowledged, so on the replica too.
    expect(await replica.client.xLen(pipeline.keys.logSegment(task, 0))).toBe(1);
    expect(await master.client.info('commandstats')).toMatch(/^cmdstat_wait:calls=[1-9]/m);
  });

  it('holds the acknowledgement while the replica does not answer, then stores the batch exactly once', async () => {
    const task = unique('t');
    const before = await failedWaits();
    replica.child.kill('SIGSTOP');
    try {
      await pipeline.publishRequest(COMPANY, [
        log(task, 2_000, 'while the replica sleeps'),
        { type: 'training_stats_scalar', entity: task, metric: 'loss', variant: 'v', iter: 1, value: 0.5 },
      ]);
      // Barrier: a WAIT of this batch came back short.
      await eventually(async () => (await failedWaits()) > before, undefined, { timeoutMs: 15_000 });
      const partition = partitionOf('t', task, harness.config.NATS_PARTITIONS);
      const consumer = await pipeline.jsm.consumers.info(
        streamName(harness.config.NATS_STREAM_PREFIX),
        consumerName(harness.config.NATS_STREAM_PREFIX, partition),
      );
      expect(consumer.num_ack_pending + consumer.num_pending).toBeGreaterThan(0);
    } finally {
      replica.child.kill('SIGCONT');
    }
    await pipeline.drained(60_000);
    expect((await pipeline.logEntries(task)).map((e) => e.event.msg)).toEqual(['while the replica sleeps']);
    expect(await replica.client.xLen(pipeline.keys.logSegment(task, 0))).toBe(1);
    const lm = JSON.parse(
      (await replica.client.hGet(pipeline.keys.lastMetrics(COMPANY, 't', task), JSON.stringify(['loss', 'v'])))!,
    );
    expect(lm).toMatchObject({ value: 0.5, count: 1 });
  });

  it('uses a partition lease only once the replica has it: with the replica stopped, renewals on the master no longer extend the right to write, and fresh leases are given back', async () => {
    const ttlMs = 1_500;
    const replication = new ReplicaSync(nodesOfClient(master.client), redisKeys('leases'), {
      replicas: 'auto',
      timeoutMs: 200,
    });
    const logger = createLogger({ level: 'silent', name: 'leases' });
    const owner = (keys: ReturnType<typeof writerKeys>, taken: number[]) =>
      new PartitionOwnership(
        new PartitionLeases(master.client, keys, 'writer-under-test', ttlMs, replication),
        { take: (p) => taken.push(p), drop: () => undefined, handBack: async () => undefined },
        { partitions: 2, leaseTtlMs: ttlMs },
        logger,
      );
    const keys = writerKeys(unique('lease-'), 's');
    const first = owner(keys, []);
    await first.start();
    expect(first.holds(0) && first.holds(1)).toBe(true);
    const late: number[] = [];
    const secondKeys = writerKeys(unique('lease-'), 's');
    const second = owner(secondKeys, late);
    replica.child.kill('SIGSTOP');
    try {
      const stoppedAt = Date.now();
      // A failover now would promote a replica whose copies expire TTL after the last renewal it got.
      await eventually(() => !first.holds(0) && !first.holds(1), undefined, { timeoutMs: ttlMs * 3, everyMs: 20 });
      expect(Date.now() - stoppedAt).toBeLessThan(ttlMs + 1_500);
      // Leases taken while no replica confirms them are not used, and are given back.
      await second.start();
      expect(late).toEqual([]);
      expect(await master.client.exists([0, 1].map((p) => secondKeys.lease(p)))).toBe(0);
    } finally {
      replica.child.kill('SIGCONT');
      await first.stop();
      await second.stop();
    }
  });
});
