/**
 * `npm run faults`: the fault bench (docs/faults.md). Starts a throwaway
 * stack and the split deployment, runs every scenario of the table under
 * load, one at a time, and prints one row per scenario, then the line
 * `faults scenarios=<n> acked=<n> lost=<n> duplicated=<n> unrecovered=<n>`.
 * With --cluster: the cluster shape of `npm run start:cluster` and its kill
 * scenarios, all traffic through nginx, last line `faults-cluster ...`.
 * Exit 0 only when nothing was lost, duplicated or left unrecovered and no
 * well-formed event was refused; 1 otherwise; 2 when the bench itself failed.
 *
 *   --cluster            the cluster shape (5 scenarios, kill -9 only)
 *   --pause-seconds <n>  length of the SIGSTOP and stop faults (default 30)
 *   --only <names>       comma-separated parts of scenario names (`redis`, `kill -9`)
 *   --keep               keep the data folder (logs of every process) even on success
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openClusterFaultDeployment } from './cluster-fault-deployment.js';
import { CLUSTER_SCENARIOS } from './cluster-fault-scenarios.js';
import type { FaultDeployment, Scenario } from './fault-deployment.js';
import { CLUSTER_LOAD, FULL_LOAD } from './fault-load.js';
import { finalLine, formatNotes, formatTable, totalsOf } from './fault-report.js';
import { openLocalFaultDeployment } from './local-fault-deployment.js';
import { ALL_SCENARIOS } from './local-fault-scenarios.js';
import { PipelineWatch } from './pipeline-drain.js';
import { runScenario, type ScenarioRow, type ScenarioSettings } from './scenario-runner.js';
import { SDK_RETRY } from './sdk-retry.js';
import { login } from './service-calls.js';

function progress(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

const { values } = parseArgs({
  options: {
    cluster: { type: 'boolean', default: false },
    'pause-seconds': { type: 'string', default: '30' },
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const pauseSeconds = Number(values['pause-seconds']);
if (!Number.isFinite(pauseSeconds) || pauseSeconds < 0) {
  process.stderr.write('--pause-seconds expects a number of seconds\n');
  process.exit(2);
}
const wanted = values.only
  ?.split(',')
  .map((part) => part.trim().toLowerCase())
  .filter(Boolean);
const table = (values.cluster ? CLUSTER_SCENARIOS : ALL_SCENARIOS) as readonly Scenario<FaultDeployment>[];
const scenarios = wanted ? table.filter((s) => wanted.some((part) => s.name.toLowerCase().includes(part))) : table;
const shape = values.cluster ? CLUSTER_LOAD : FULL_LOAD;
const bench = values.cluster ? 'faults-cluster' : 'faults';

const settings: ScenarioSettings = {
  pauseMs: pauseSeconds * 1000,
  warmupMs: 3_000,
  tailMs: 3_000,
  recoveryTimeoutMs: 60_000,
  finishTimeoutMs: 30_000,
  drainTimeoutMs: 60_000,
  shape,
  policy: SDK_RETRY,
  log: progress,
};

let deployment: FaultDeployment | undefined;
let watch: PipelineWatch | undefined;
let interrupted = false;

async function cleanup(keep: boolean): Promise<void> {
  await watch?.close().catch(() => undefined);
  await deployment?.stop({ keep });
  if (keep && deployment) progress(`data and logs kept in ${deployment.dataDir}`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    progress(`${signal}: stopping every process the bench started`);
    // Still starting: main() stops the deployment as soon as it exists.
    if (deployment) void cleanup(true).finally(() => process.exit(130));
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  progress(
    `fault bench${values.cluster ? ' (cluster)' : ''}: ${scenarios.length} scenarios${values.cluster ? '' : `, faults of ${pauseSeconds} s`}, load ${JSON.stringify(shape)}`,
  );
  deployment = values.cluster
    ? await openClusterFaultDeployment({ log: progress })
    : await openLocalFaultDeployment({ log: progress });
  if (interrupted) {
    await cleanup(true);
    return 130;
  }
  progress(
    `${values.cluster ? 'cluster' : 'stack and split deployment'} up in ${deployment.dataDir} (ingest ${deployment.ingestUrl}, gRPC ${deployment.grpcAddress}, query ${deployment.queryUrl})`,
  );
  const tokens = await Promise.all(deployment.credentials.map((credential) => login(deployment!.queryUrl, credential)));
  watch = await PipelineWatch.open(deployment.natsUrl, deployment.streamPrefix, deployment.partitions);
  const run = randomBytes(3).toString('hex');
  const rows: ScenarioRow[] = [];
  for (const [i, target] of scenarios.entries()) {
    progress(`scenario ${i + 1}/${scenarios.length}: ${target.name}`);
    const row = await runScenario(deployment, watch, tokens, target, `faults-${run}-s${i + 1}`, settings);
    rows.push(row);
    progress(
      `  ${row.scenario}: acked ${row.acked} (${row.requests} requests), lost ${row.lost}, duplicated ${row.duplicated}, 5xx ${row.serverErrors}, no answer ${row.noAnswer}, failing for ${row.failingSeconds.toFixed(1)} s, reads failed ${row.readFailures}/${row.reads}${row.unrecovered ? ', UNRECOVERED' : ''} (${Math.round(row.seconds)} s)`,
    );
  }
  const totals = totalsOf(rows);
  const clean = totals.lost === 0 && totals.duplicated === 0 && totals.unrecovered === 0 && totals.rejected === 0;
  await cleanup(values.keep || !clean);
  process.stdout.write(`\n${formatTable(rows)}\n\n`);
  const notes = formatNotes(rows);
  if (notes) process.stdout.write(`${notes}\n\n`);
  if (totals.rejected > 0)
    process.stdout.write(`${totals.rejected} answers refused well-formed events (4xx): see the notes\n`);
  process.stdout.write(`total time ${Math.round((Date.now() - started) / 1000)} s\n`);
  process.stdout.write(`${finalLine(totals, bench)}\n`);
  return clean ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`fault bench failed: ${(error as Error).stack ?? String(error)}\n`);
    await cleanup(true).catch(() => undefined);
    process.exit(2);
  },
);
