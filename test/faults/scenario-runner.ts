/**
 * One scenario: fresh tasks under load, the fault while the load runs, the
 * time to recover, the load's tail and end, the pipeline's drain, and the
 * per-event audit; the outcome is one row of the report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { auditEvents } from './event-audit.js';
import { SERVICE_TARGETS, type FaultDeployment } from './fault-deployment.js';
import { FaultLoad, type LoadShape } from './fault-load.js';
import { COMPONENT_NAMES, injectFault, type Scenario } from './fault-scenarios.js';
import type { PipelineWatch } from './pipeline-drain.js';
import { measureRecovery } from './recovery-probe.js';
import type { RetryPolicy } from './sdk-retry.js';

export interface ScenarioSettings {
  /** SIGSTOP and stop faults last this long. */
  pauseMs: number;
  /** Load before the fault. */
  warmupMs: number;
  /** Load after recovery. */
  tailMs: number;
  recoveryTimeoutMs: number;
  /** After the load stops, its last requests must be acknowledged within this. */
  finishTimeoutMs: number;
  drainTimeoutMs: number;
  shape: LoadShape;
  policy: RetryPolicy;
  log: (line: string) => void;
}

export interface ScenarioRow {
  scenario: string;
  /** Requests and chunks the clients sent (re-sends not counted). */
  requests: number;
  acked: number;
  stored: number;
  lost: number;
  duplicated: number;
  serverErrors: number;
  tooMany: number;
  noAnswer: number;
  rejected: number;
  abandoned: number;
  storedUnacked: number;
  recoverSeconds?: number;
  drained: boolean;
  unrecovered: boolean;
  seconds: number;
  /** Why the row is not clean, with examples. */
  notes: string[];
}

export async function runScenario(
  deployment: FaultDeployment,
  watch: PipelineWatch,
  tokens: readonly string[],
  target: Scenario,
  taskPrefix: string,
  settings: ScenarioSettings,
): Promise<ScenarioRow> {
  const { log } = settings;
  const started = Date.now();
  const notes: string[] = [];
  await ensureHealthy(deployment, watch, settings);
  const pidsBefore = Object.fromEntries(SERVICE_TARGETS.map((t) => [t, deployment.pidOf(t)]));

  const load = new FaultLoad(deployment, tokens, taskPrefix, settings.shape, settings.policy);
  load.start();
  const warmupEnd = Date.now() + settings.warmupMs;
  while (Date.now() < warmupEnd || (!load.everyClientAcked && Date.now() < warmupEnd + 4 * settings.warmupMs)) await sleep(100);
  if (!load.everyClientAcked) notes.push('not every client had a 200 before the fault');
  log(`  ${target.name}: load running (${load.ledger.ackedCount} events acknowledged), injecting the fault`);

  load.ledger.faultAt = Date.now();
  const fault = await injectFault(deployment, target, settings.pauseMs, settings.recoveryTimeoutMs);
  const back = fault.back.then(
    () => undefined,
    (error: unknown) => notes.push(`${COMPONENT_NAMES[target.component]} did not come back: ${(error as Error).message}`),
  );
  log(`  ${target.name}: fault over, ${load.ledger.ackedCount} acknowledged; probing ingest and reads`);
  const recoverSeconds = await measureRecovery({
    ingestUrl: deployment.ingestUrl,
    queryUrl: deployment.queryUrl,
    token: tokens[0]!,
    task: `${taskPrefix}-probe`,
    ledger: load.ledger,
    from: fault.endedAt,
    timeoutMs: settings.recoveryTimeoutMs,
  });
  await back;
  log(`  ${target.name}: ${recoverSeconds === undefined ? `NOT recovered within ${settings.recoveryTimeoutMs / 1000} s` : `recovered in ${recoverSeconds.toFixed(1)} s`}; load goes on ${settings.tailMs / 1000} s`);
  await sleep(settings.tailMs);
  await load.finish(settings.finishTimeoutMs);
  log(`  ${target.name}: load done, ${load.ledger.ackedCount} acknowledged; waiting for the pipeline to drain`);

  const drain = await watch.waitDrained(settings.drainTimeoutMs);
  if (!drain.drained) notes.push(`pipeline not drained within ${settings.drainTimeoutMs / 1000} s: ${drain.detail}`);
  log(`  ${target.name}: ${drain.drained ? 'drained' : 'NOT drained'}; reading every event back`);
  const audit = await auditEvents(deployment.queryUrl, tokens, load.ledger);

  for (const t of SERVICE_TARGETS) {
    if (t !== target.component && deployment.pidOf(t) !== pidsBefore[t]) notes.push(`${t} exited on its own during the scenario`);
  }
  const { counters, examples } = load.ledger;
  if (audit.lostExamples.length > 0) notes.push(`lost e.g. ${audit.lostExamples.join(', ')}`);
  if (audit.duplicatesByTask.length > 0) notes.push(`duplicated per task: ${audit.duplicatesByTask.join(', ')}`);
  notes.push(...audit.duplicateExamples.map((e) => `duplicated e.g. ${e}`));
  notes.push(...audit.readErrors.map((e) => `read failed: ${e}`));
  if (audit.storedUnacked > 0) notes.push(`${audit.storedUnacked} events stored without a 200 (their answer was lost; not an error by itself)`);
  notes.push(...examples.map((e) => `client saw ${e}`));
  const unrecovered = recoverSeconds === undefined || !drain.drained || counters.abandoned > 0 || audit.readErrors.length > 0;
  return {
    scenario: target.name,
    requests: counters.requests,
    acked: audit.acked,
    stored: audit.stored,
    lost: audit.lost,
    duplicated: audit.duplicated,
    serverErrors: counters.serverErrors,
    tooMany: counters.tooMany,
    noAnswer: counters.noAnswer,
    rejected: counters.rejected,
    abandoned: counters.abandoned,
    storedUnacked: audit.storedUnacked,
    recoverSeconds,
    drained: drain.drained,
    unrecovered,
    seconds: (Date.now() - started) / 1000,
    notes,
  };
}

/** Every process up and the pipeline empty before a scenario starts, whatever the previous one left. */
async function ensureHealthy(deployment: FaultDeployment, watch: PipelineWatch, settings: ScenarioSettings): Promise<void> {
  for (const server of ['nats', 'influxdb', 'redis'] as const) await deployment.waitStoreUp(server, settings.recoveryTimeoutMs);
  for (const t of SERVICE_TARGETS) {
    const service = deployment.services[t];
    if (service.pid === undefined) {
      settings.log(`  ${t} is not running (left so by the previous scenario): starting it`);
      await service.start();
    } else await service.waitReady(settings.recoveryTimeoutMs);
  }
  const drain = await watch.waitDrained(settings.drainTimeoutMs);
  if (!drain.drained) settings.log(`  warning: the pipeline still holds work of the previous scenario: ${drain.detail}`);
}
