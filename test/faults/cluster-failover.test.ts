// Issue 12, item 4, in small (docs/faults.md, "The cluster's scenarios"): on the cluster shape of
// `npm run start:cluster`, the nats-server leading the events stream and a Redis master are killed
// with -9, one at a time (in the bench's order), while HTTP, gRPC and read clients go through nginx and retry like the SDK.
// Each time the cluster fails over (the replica, another node takes over), the killed node rejoins,
// every acknowledged event is readable exactly once, and clients saw a bounded run of failures.
// Its own cluster (it kills processes; the cluster pass's shared one must not lose any).
import { describe, expect, it } from 'vitest';
import { openClusterFaultDeployment } from './cluster-fault-deployment.js';
import { NATS_LEADER_KILL, REDIS_MASTER_KILL } from './cluster-fault-scenarios.js';
import type { ScenarioSettings } from './scenario-runner.js';
import { expectNothingLost, scenarioSuite } from './scenario-suite.js';

/**
 * Longest run of failures a client may see (s): the store's failover (Redis: cluster-node-timeout
 * 2 s and the election; JetStream: a raft election, 4 to 9 s in nats-server 2.9) plus one back-off,
 * with room for a loaded 2-core machine. A client that never recovers fails the row instead.
 */
const FAILING_BOUND_S = 30;

const settings: ScenarioSettings = {
  pauseMs: 0,
  warmupMs: 2_000,
  tailMs: 2_000,
  recoveryTimeoutMs: 40_000,
  restartTimeoutMs: 60_000,
  finishTimeoutMs: 30_000,
  drainTimeoutMs: 40_000,
  shape: { http: 1, grpcAddBatch: 1, grpcStream: 1, reads: 1, batchEvents: 40, intervalMs: 200 },
  policy: { timeoutMs: 10_000, firstDelayMs: 250, maxDelayMs: 2_000 },
  log: () => {},
};

const suite = scenarioSuite(() => openClusterFaultDeployment({ log: () => {}, maxHeapMb: 192 }), 180_000);

describe('a clustered store node killed with -9 under load through nginx', () => {
  it.each([NATS_LEADER_KILL, REDIS_MASTER_KILL])(
    '$name: fails over, nothing acknowledged is lost or duplicated, failures last a bounded time',
    async (target) => {
      const row = await suite.run(target, 'cluster-failover', settings);
      const why = row.notes.join('\n');
      expectNothingLost(row);
      // Another node took over, and the killed one came back (full strength: cluster-health.ts).
      expect(why).toMatch(/took over/);
      expect(row.backSeconds, why).toBeDefined();
      expect(row.failingSeconds, why).toBeLessThan(FAILING_BOUND_S);
      expect(row.readFailingSeconds, why).toBeLessThan(FAILING_BOUND_S);
      console.log(
        `${row.scenario}: acked ${row.acked}, failing for ${row.failingSeconds.toFixed(1)} s, reads failed ${row.readFailures}/${row.reads}, recovered in ${row.recoverSeconds?.toFixed(1)} s, back in ${row.backSeconds?.toFixed(1)} s`,
      );
    },
    150_000,
  );
});
