// Issue 11 (faults), the fault bench in small (docs/faults.md): kill -9 of nats-server and of redis-server while HTTP and
// gRPC clients send mixed events and retry like the SDK; afterwards every acknowledged event is readable exactly once
// (architecture.md "Durability chain": a 200 means kept, redelivery duplicates nothing) and the service recovered by itself.
// Its own stack and split deployment (child processes from dist/, built by `npm test`): it kills stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalFaultDeployment, type LocalFaultDeployment } from './local-fault-deployment.js';
import { scenario } from './local-fault-scenarios.js';
import { PipelineWatch } from './pipeline-drain.js';
import { runScenario, type ScenarioSettings } from './scenario-runner.js';
import { login } from './service-calls.js';

let deployment: LocalFaultDeployment;
let watch: PipelineWatch;
let tokens: string[];

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

beforeAll(async () => {
  deployment = await openLocalFaultDeployment({ log: () => {} });
  tokens = await Promise.all(deployment.credentials.map((credential) => login(deployment.queryUrl, credential)));
  watch = await PipelineWatch.open(deployment.natsUrl, deployment.streamPrefix, deployment.partitions);
}, 120_000);

afterAll(async () => {
  await watch?.close();
  await deployment?.stop();
});

describe('a store killed with -9 under load', () => {
  it.each([scenario('nats', 'kill'), scenario('redis', 'kill')])('$name: nothing acknowledged is lost or duplicated, and the service recovers', async (target) => {
    const row = await runScenario(deployment, watch, tokens, target, `faults-test-${target.component}-${Date.now().toString(36)}`, settings);

    // The fault hit a running load: events were acknowledged, and clients had to retry.
    expect(row.acked).toBeGreaterThan(0);
    expect(row.serverErrors + row.noAnswer).toBeGreaterThan(0);
    expect(row, row.notes.join('\n')).toMatchObject({ lost: 0, duplicated: 0, rejected: 0, abandoned: 0, drained: true, unrecovered: false });
    expect(row.stored).toBe(row.acked);
  }, 100_000);
});
