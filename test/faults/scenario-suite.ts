/**
 * A vitest file that runs fault scenarios against a deployment of its own
 * (it kills processes): the deployment, the two companies' tokens and the
 * pipeline watch made before its tests and stopped after them, and the
 * checks every such row must pass.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import type { FaultDeployment, Scenario } from './fault-deployment.js';
import { PipelineWatch } from './pipeline-drain.js';
import { runScenario, type ScenarioRow, type ScenarioSettings } from './scenario-runner.js';
import { login } from './service-calls.js';

export function scenarioSuite<D extends FaultDeployment>(
  open: () => Promise<D>,
  openTimeoutMs: number,
): { run(target: Scenario<D>, taskPrefix: string, settings: ScenarioSettings): Promise<ScenarioRow> } {
  let deployment: D | undefined;
  let watch: PipelineWatch | undefined;
  let tokens: string[] = [];
  beforeAll(async () => {
    deployment = await open();
    tokens = await Promise.all(deployment.credentials.map((credential) => login(deployment!.queryUrl, credential)));
    watch = await PipelineWatch.open(deployment.natsUrl, deployment.streamPrefix, deployment.partitions);
  }, openTimeoutMs);
  afterAll(async () => {
    await watch?.close();
    await deployment?.stop();
  }, 60_000);
  return {
    run: (target, taskPrefix, settings) =>
      runScenario(deployment!, watch!, tokens, target, `${taskPrefix}-${Date.now().toString(36)}`, settings),
  };
}

/** The fault hit a running load (events acknowledged, clients had to retry), and every acknowledged event is readable once. */
export function expectNothingLost(row: ScenarioRow): void {
  const why = row.notes.join('\n');
  expect(row.acked).toBeGreaterThan(0);
  expect(row.serverErrors + row.noAnswer, why).toBeGreaterThan(0);
  expect(row, why).toMatchObject({
    lost: 0,
    duplicated: 0,
    rejected: 0,
    abandoned: 0,
    drained: true,
    unrecovered: false,
  });
  expect(row.stored).toBe(row.acked);
}
