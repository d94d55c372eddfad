/**
 * "At full strength", for the clustered stores, as an SRE checks it:
 *
 * - Redis Cluster: every node answers and sees `cluster_state:ok`, there are
 *   as many masters as at the start, and each has a replica whose link to it
 *   is up and done syncing (a killed master that came back is one of those
 *   replicas).
 * - JetStream: the events stream and every partition's durable consumer have
 *   a leader and all their replicas current.
 *
 * Also the two questions a fault needs answered first: which Redis node is
 * the master of a key's slot, and which NATS node leads the events stream.
 */
import calculateSlot from 'cluster-key-slot';
import type { NatsConnection } from 'nats';
import { createClient } from 'redis';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClusterStack } from '../../deploy/cluster-stack/cluster-stack.js';
import { clusterInfo } from '../../deploy/cluster-stack/redis-cluster.js';
import { consumerName, streamName } from '../../shared/events/wire-format.js';

const COMMAND_TIMEOUT_MS = 2_000;
const POLL_MS = 200;

/** One command to one Redis node, on a connection of its own (a node may be dead). */
export async function redisNodeCommand(port: number, args: string[]): Promise<string> {
  const client = createClient({
    url: `redis://127.0.0.1:${port}`,
    socket: { connectTimeout: COMMAND_TIMEOUT_MS, reconnectStrategy: false },
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const reply = await Promise.race([
      client.sendCommand(args),
      sleep(COMMAND_TIMEOUT_MS).then(() => {
        throw new Error(`no answer within ${COMMAND_TIMEOUT_MS} ms`);
      }),
    ]);
    return typeof reply === 'string' ? reply : JSON.stringify(reply);
  } finally {
    client.destroy();
  }
}

export function redisLabels(stack: ClusterStack): string[] {
  return stack.labels().filter((label) => label.startsWith('redis-'));
}

/** The label of the node serving `key`'s slot as master, as the node `askLabel` sees it. */
export async function redisMasterOf(stack: ClusterStack, key: string, askLabel: string): Promise<string> {
  const slot = calculateSlot(key);
  const ranges = JSON.parse(await redisNodeCommand(stack.redisPortOf(askLabel), ['CLUSTER', 'SLOTS'])) as Array<
    [number, number, [string, number, ...unknown[]], ...unknown[]]
  >;
  const range = ranges.find(([from, to]) => from <= slot && slot <= to);
  if (!range) throw new Error(`no master serves slot ${slot}`);
  const port = range[2][1];
  const label = redisLabels(stack).find((l) => stack.redisPortOf(l) === port);
  if (!label) throw new Error(`slot ${slot} is served by port ${port}, not a node of the stack`);
  return label;
}

/** What is missing for full strength; empty when there is nothing. */
export async function redisShortfall(stack: ClusterStack, masters: number): Promise<string[]> {
  const labels = redisLabels(stack);
  const nodes = await Promise.all(
    labels.map(async (label) => {
      try {
        const port = stack.redisPortOf(label);
        const [info, replication] = await Promise.all([
          redisNodeCommand(port, ['CLUSTER', 'INFO']),
          redisNodeCommand(port, ['INFO', 'replication']),
        ]);
        return { label, state: clusterInfo(info).cluster_state, replication: clusterInfo(replication) };
      } catch (error) {
        return { label, error: (error as Error).message };
      }
    }),
  );
  const missing: string[] = [];
  let masterCount = 0;
  const replicated = new Set<string>();
  for (const node of nodes) {
    if ('error' in node) {
      missing.push(`${node.label}: ${node.error}`);
      continue;
    }
    if (node.state !== 'ok') missing.push(`${node.label}: cluster_state ${node.state}`);
    const { role, master_port, master_link_status, master_sync_in_progress } = node.replication;
    if (role === 'master') masterCount++;
    else if (master_link_status !== 'up' || master_sync_in_progress !== '0')
      missing.push(`${node.label}: replica link ${master_link_status}, sync in progress ${master_sync_in_progress}`);
    else replicated.add(master_port!);
  }
  if (masterCount !== masters) missing.push(`${masterCount} masters, expected ${masters}`);
  for (const node of nodes) {
    if (
      !('error' in node) &&
      node.replication.role === 'master' &&
      !replicated.has(String(stack.redisPortOf(node.label)))
    )
      missing.push(`${node.label}: master without a synced replica`);
  }
  return missing;
}

/** The name (label) of the NATS node leading the events stream. */
export async function natsStreamLeader(nc: NatsConnection, prefix: string): Promise<string | undefined> {
  const jsm = await nc.jetstreamManager({ timeout: COMMAND_TIMEOUT_MS });
  return (await jsm.streams.info(streamName(prefix))).cluster?.leader;
}

/** What is missing for the events stream and its consumers to be at full strength; empty when there is nothing. */
export async function jetStreamShortfall(
  nc: NatsConnection,
  prefix: string,
  partitions: number,
  replicas: number,
): Promise<string[]> {
  const missing: string[] = [];
  const check = (
    what: string,
    cluster: { leader?: string; replicas?: Array<{ name: string; current: boolean; offline?: boolean }> } | undefined,
  ) => {
    if (!cluster?.leader) missing.push(`${what}: no leader`);
    const current = (cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length;
    if (current !== replicas - 1) missing.push(`${what}: ${current} of ${replicas - 1} followers current`);
  };
  try {
    const jsm = await nc.jetstreamManager({ timeout: COMMAND_TIMEOUT_MS });
    check('stream', (await jsm.streams.info(streamName(prefix))).cluster);
    for (let p = 0; p < partitions; p++)
      check(`consumer p${p}`, (await jsm.consumers.info(streamName(prefix), consumerName(prefix, p))).cluster);
  } catch (error) {
    missing.push((error as Error).message);
  }
  return missing;
}

/** Polls `shortfall` until it is empty; throws with the last one at the deadline. */
export async function waitFullStrength(
  what: string,
  shortfall: () => Promise<string[]>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const missing = await shortfall();
    if (missing.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`${what} not at full strength within ${timeoutMs} ms: ${missing.join('; ')}`);
    await sleep(POLL_MS);
  }
}
