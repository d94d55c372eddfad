/**
 * One scenario: fresh tasks under load, the fault while the load runs, the
 * time to recover, the load's tail and end, the pipeline's drain, and the
 * per-event audit; the outcome is one row of the report. The same for
 * every deployment shape: the scenario injects its fault.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { auditEvents } from './event-audit.js';
import type { FaultDeployment, Scenario } from './fault-deployment.js';
import { FaultLoad, type LoadShape } from './fault-load.js';
import type { PipelineWatch } from './pipeline-drain.js';
import { measureRecovery } from './recovery-probe.js';
import type { RetryPolicy } from './sdk-retry.js';

export interface ScenarioSettings {
  /** SIGSTOP and stop faults last this long. */
  pauseMs: number;
  /** How long a broken process has to be back (at full strength). */
  restartTimeoutMs?: number;
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
  /** Longest run of failed attempts one ingest client saw, from its first failed attempt to its next 200 (s). */
  failingSeconds: number;
  /** Reads sent (re-sends not counted), and attempts of them that failed (5xx or no answer). */
  reads: number;
  readFailures: number;
  /** Longest run of failed attempts one read client saw (s). */
  readFailingSeconds: number;
  recoverSeconds?: number;
  /** From the end of the fault until the broken process was back at full strength (undefined: not back). */
  backSeconds?: number;
  drained: boolean;
  unrecovered: boolean;
  seconds: number;
  /** Why the row is not clean, with examples. */
  notes: string[];
}

export async function runScenario<D extends FaultDeployment>(
  deployment: D,
  watch: PipelineWatch,
  tokens: readonly string[],
  target: Scenario<D>,
  taskPrefix: string,
  settings: ScenarioSettings,
): Promise<ScenarioRow> {
  const { log } = settings;
  const started = Date.now();
  const notes: string[] = [];
  await ensureHealthy(deployment, watch, settings);
  const pidsBefore = deployment.processPids();

  const load = new FaultLoad(deployment, tokens, taskPrefix, settings.shape, settings.policy);
  load.start();
  const warmupEnd = Date.now() + settings.warmupMs;
  while (Date.now() < warmupEnd || (!load.everyClientAcked && Date.now() < warmupEnd + 4 * settings.warmupMs))
    await sleep(100);
  if (!load.everyClientAcked) notes.push('not every client had a 200 before the fault');
  log(`  ${target.name}: load running (${load.ledger.ackedCount} events acknowledged), injecting the fault`);

  load.ledger.faultAt = Date.now();
  const fault = await target.inject(deployment, {
    pauseMs: settings.pauseMs,
    restartTimeoutMs: settings.restartTimeoutMs ?? settings.recoveryTimeoutMs,
  });
  let backSeconds: number | undefined;
  const back = fault.back.then(
    () => (backSeconds = (Date.now() - fault.endedAt) / 1000),
    (error: unknown) => notes.push(`${fault.targets.join(', ')} did not come back: ${(error as Error).message}`),
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
  // The fault's own notes grow until it is back (which node took over, and when).
  notes.push(...(fault.notes ?? []));
  log(
    `  ${target.name}: ${recoverSeconds === undefined ? `NOT recovered within ${settings.recoveryTimeoutMs / 1000} s` : `recovered in ${recoverSeconds.toFixed(1)} s`}; load goes on ${settings.tailMs / 1000} s`,
  );
  await sleep(settings.tailMs);
  await load.finish(settings.finishTimeoutMs);
  log(`  ${target.name}: load done, ${load.ledger.ackedCount} acknowledged; waiting for the pipeline to drain`);

  const drain = await watch.waitDrained(settings.drainTimeoutMs);
  if (!drain.drained) notes.push(`pipeline not drained within ${settings.drainTimeoutMs / 1000} s: ${drain.detail}`);
  log(`  ${target.name}: ${drain.drained ? 'drained' : 'NOT drained'}; reading every event back`);
  const audit = await auditEvents(deployment.queryUrl, tokens, load.ledger);

  const pidsAfter = deployment.processPids();
  for (const [label, pid] of Object.entries(pidsBefore)) {
    if (!fault.targets.includes(label) && pidsAfter[label] !== pid)
      notes.push(`${label} exited on its own during the scenario`);
  }
  const { counters, examples, reads } = load.ledger;
  if (audit.lostExamples.length > 0) notes.push(`lost e.g. ${audit.lostExamples.join(', ')}`);
  if (audit.duplicatesByTask.length > 0) notes.push(`duplicated per task: ${audit.duplicatesByTask.join(', ')}`);
  notes.push(...audit.duplicateExamples.map((e) => `duplicated e.g. ${e}`));
  notes.push(...audit.readErrors.map((e) => `read failed: ${e}`));
  if (audit.storedUnacked > 0)
    notes.push(`${audit.storedUnacked} events stored without a 200 (their answer was lost; not an error by itself)`);
  notes.push(...[...examples, ...reads.examples].map((e) => `client saw ${e}`));
  if (load.ledger.longestFailingClient)
    notes.push(
      `longest run of failures: ${load.ledger.longestFailingClient}, ${(load.ledger.longestFailingMs / 1000).toFixed(1)} s`,
    );
  if (reads.longestFailingClient)
    notes.push(
      `longest run of read failures: ${reads.longestFailingClient}, ${(reads.longestFailingMs / 1000).toFixed(1)} s`,
    );
  const unrecovered =
    recoverSeconds === undefined ||
    backSeconds === undefined ||
    !drain.drained ||
    counters.abandoned > 0 ||
    reads.counters.abandoned > 0 ||
    audit.readErrors.length > 0;
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
    failingSeconds: load.ledger.longestFailingMs / 1000,
    reads: reads.counters.requests,
    readFailures: reads.counters.serverErrors + reads.counters.noAnswer,
    readFailingSeconds: reads.longestFailingMs / 1000,
    recoverSeconds,
    backSeconds,
    drained: drain.drained,
    unrecovered,
    seconds: (Date.now() - started) / 1000,
    notes,
  };
}

/** Every process up and the pipeline empty before a scenario starts, whatever the previous one left. */
async function ensureHealthy(
  deployment: FaultDeployment,
  watch: PipelineWatch,
  settings: ScenarioSettings,
): Promise<void> {
  await deployment.ensureUp(settings.recoveryTimeoutMs, settings.log);
  const drain = await watch.waitDrained(settings.drainTimeoutMs);
  if (!drain.drained)
    settings.log(`  warning: the pipeline still holds work of the previous scenario: ${drain.detail}`);
}
