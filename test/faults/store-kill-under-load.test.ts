// Issue 11 (faults), the fault bench in small (docs/faults.md): kill -9 of nats-server and of redis-server while HTTP and
// gRPC clients send mixed events and retry like the SDK; afterwards every acknowledged event is readable exactly once
// (architecture.md "Durability chain": a 200 means kept, redelivery duplicates nothing) and the service recovered by itself.
// Its own stack and split deployment (child processes from dist/, built by `npm test`): it kills stores.
import { describe, it } from 'vitest';
import { openLocalFaultDeployment } from './local-fault-deployment.js';
import { scenario } from './local-fault-scenarios.js';
import type { ScenarioSettings } from './scenario-runner.js';
import { expectNothingLost, scenarioSuite } from './scenario-suite.js';

const settings: ScenarioSettings = {
  pauseMs: 0,
  warmupMs: 2_000,
  tailMs: 2_000,
  recoveryTimeoutMs: 30_000,
  finishTimeoutMs: 20_000,
  drainTimeoutMs: 30_000,
  shape: { http: 1, grpcAddBatch: 1, grpcStream: 1, reads: 0, batchEvents: 40, intervalMs: 200 },
  policy: { timeoutMs: 10_000, firstDelayMs: 250, maxDelayMs: 4_000 },
  log: () => {},
};

const suite = scenarioSuite(() => openLocalFaultDeployment({ log: () => {} }), 120_000);

describe('a store killed with -9 under load', () => {
  it.each([scenario('nats', 'kill'), scenario('redis', 'kill')])(
    '$name: nothing acknowledged is lost or duplicated, and the service recovers',
    async (target) => {
      expectNothingLost(await suite.run(target, `faults-test-${target.component}`, settings));
    },
    100_000,
  );
});
