/**
 * The cluster's scenarios (issue 12): kill -9 of one process of each kind,
 * one at a time, each the one whose loss costs most:
 *
 * - the nats-server leading the events stream (a new leader is elected
 *   among the other two; the node, started again, catches up as a follower);
 * - the Redis master serving the writers' partition leases (its replica
 *   takes over after cluster-node-timeout; the node, started again, rejoins
 *   as the new master's replica);
 * - ingest-1, writer-1, query-1 (nginx sends to the others; the stack's
 *   supervisor restarts the killed one after its 1 s back-off, as under
 *   `npm run start:cluster`).
 *
 * "Back" is full strength again: the killed process replaced and
 * answering, and for the stores every replica current (cluster-health.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterInfo } from '../../deploy/cluster-stack/redis-cluster.js';
import { writerKeys } from '../../ingest/writer/writer-keys.js';
import type { ClusterFaultDeployment } from './cluster-fault-deployment.js';
import { natsStreamLeader, redisLabels, redisMasterOf, redisNodeCommand } from './cluster-health.js';
import type { FaultTiming, InjectedFault, Scenario } from './fault-deployment.js';
import { waitRestarted } from './restart-wait.js';
import { sendSignal } from './service-process.js';

export type ClusterScenario = Scenario<ClusterFaultDeployment>;

export const NATS_LEADER_KILL: ClusterScenario = {
  name: 'nats-server (stream leader) kill -9',
  inject: killNatsLeader,
};
export const REDIS_MASTER_KILL: ClusterScenario = { name: 'redis-server (master) kill -9', inject: killRedisMaster };

export const CLUSTER_SCENARIOS: readonly ClusterScenario[] = [
  NATS_LEADER_KILL,
  REDIS_MASTER_KILL,
  ...(['ingest', 'writer', 'query'] as const).map((target): ClusterScenario => ({
    name: `${target} process kill -9`,
    inject: (d, t) => killServiceProcess(d, `${target}-1`, t),
  })),
];

function kill(deployment: ClusterFaultDeployment, label: string): number {
  const pid = deployment.stack.pidOf(label);
  if (pid === undefined) throw new Error(`${label} is not running`);
  sendSignal(pid, 'SIGKILL');
  return pid;
}

async function killServiceProcess(
  deployment: ClusterFaultDeployment,
  label: string,
  { restartTimeoutMs }: FaultTiming,
): Promise<InjectedFault> {
  const killedPid = kill(deployment, label);
  const endedAt = Date.now();
  const back = waitRestarted({
    what: label,
    pidOf: () => deployment.stack.pidOf(label),
    killedPid,
    timeoutMs: restartTimeoutMs,
    answers: (left) => deployment.waitServiceReady(label, left),
  });
  return { endedAt, targets: [label], back };
}

async function killNatsLeader(deployment: ClusterFaultDeployment, timing: FaultTiming): Promise<InjectedFault> {
  const leaderNow = () => natsStreamLeader(deployment.nats, deployment.streamPrefix);
  const leader = await leaderNow();
  if (!leader) throw new Error('the events stream has no leader');
  return killStoreNode(deployment, timing, {
    label: leader,
    role: 'leader of the events stream',
    successor: async () => {
      const now = await leaderNow().catch(() => undefined);
      return now !== leader ? now : undefined;
    },
    fullStrength: (left) => deployment.waitJetStreamFullStrength(left),
  });
}

async function killRedisMaster(deployment: ClusterFaultDeployment, timing: FaultTiming): Promise<InjectedFault> {
  const { stack } = deployment;
  const leaseKey = writerKeys(deployment.streamPrefix, deployment.streamPrefix).lease(0);
  const master = await redisMasterOf(stack, leaseKey, redisLabels(stack)[0]!);
  const witness = redisLabels(stack).find((label) => label !== master)!;
  const fault = await killStoreNode(deployment, timing, {
    label: master,
    role: "master of the writers' leases",
    successor: async () => {
      const now = await redisMasterOf(stack, leaseKey, witness).catch(() => master);
      return now !== master ? now : undefined;
    },
    fullStrength: (left) => deployment.waitRedisFullStrength(left),
  });
  const back = fault.back.then(async () => {
    const role = clusterInfo(await redisNodeCommand(stack.redisPortOf(master), ['INFO', 'replication'])).role;
    fault.notes!.push(`${master} rejoined as a ${role === 'slave' ? 'replica' : role}`);
  });
  return { ...fault, back };
}

/**
 * kill -9 of a store node, held down (as a lost machine stays down) until
 * another node took its role over; then the supervisor starts it again and
 * it must rejoin: back is full strength. Without the hold the supervisor's
 * 1 s restart would often beat the failure detection, and the scenario
 * would test a restart instead of a failover.
 */
async function killStoreNode(
  deployment: ClusterFaultDeployment,
  { restartTimeoutMs }: FaultTiming,
  node: {
    label: string;
    role: string;
    successor: () => Promise<string | undefined>;
    fullStrength: (timeoutMs: number) => Promise<void>;
  },
): Promise<InjectedFault> {
  const { stack } = deployment;
  kill(deployment, node.label);
  const endedAt = Date.now();
  await stack.stopServer(node.label);
  const notes = [`killed ${node.label}, ${node.role}`];
  const back = (async () => {
    const deadline = endedAt + restartTimeoutMs;
    for (;;) {
      const successor = await node.successor();
      if (successor) {
        notes.push(`${successor} took over ${((Date.now() - endedAt) / 1000).toFixed(1)} s after the kill`);
        break;
      }
      if (Date.now() > deadline) throw new Error(`nobody took over from ${node.label} within ${restartTimeoutMs} ms`);
      await sleep(100);
    }
    await stack.startServer(node.label);
    await node.fullStrength(Math.max(1_000, deadline - Date.now()));
  })();
  return { endedAt, targets: [node.label], back, notes };
}
