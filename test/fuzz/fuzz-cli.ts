/**
 * `npm run fuzz [-- options]`: starts a throwaway stack (NATS, InfluxDB,
 * Redis on free ports of 127.0.0.1, in a temporary folder) and the `all`
 * target as a child process, sends generated hostile requests over HTTP and
 * gRPC, and checks the service survived them. docs/fuzzing.md explains the
 * options, what is generated and checked, and how to reproduce a failure.
 *
 * Last line: `fuzz requests=<n> status_5xx=<n> hangs=<n> crashes=<n>
 * acked_unreadable=<n> partitions_stalled=<n>`; exit code 0 only when all
 * five are 0 and no isolation probe failed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalStack } from '../../deploy/local-stack/local-stack.js';
import { passed, printReport, summaryLine, type FuzzReport } from './fuzz-report.js';
import { runFuzz, type FuzzOptions } from './fuzz-runner.js';
import { FuzzService } from './fuzz-service.js';
import { FuzzCompanion } from './fuzz-companion.js';
import { GRPC_CLASSES } from './grpc-case.js';
import { HTTP_CLASSES } from './http-case-arbitraries.js';

const USAGE = `npm run fuzz -- [--requests N] [--seed S|random] [--time-limit 15m] [--concurrency 8] [--deadline-ms 30000] [--slow-ms 5000]
  [--drain-deadline 60s] [--readback-deadline 60s] [--max-restarts 5] [--skip class,class] [--replay i,j]
  [--max-body-bytes 1048576] [--max-line-bytes 65536] [--partitions 8] [--companion] [--keep]
classes: ${[...HTTP_CLASSES, ...GRPC_CLASSES].join(', ')}`;

function seconds(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${text}`);
  const factor = { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] ?? 's']!;
  return Number(match[1]) * factor;
}

function integer(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} expects a non-negative integer, got ${text}`);
  return value;
}

export function parseArgs(argv: string[]) {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (name === 'keep' || name === 'help' || name === 'companion') args.set(name, 'true');
    else args.set(name, inline ?? argv[++i] ?? '');
  }
  if (args.has('help')) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const known = [
    'requests',
    'seed',
    'time-limit',
    'concurrency',
    'deadline-ms',
    'slow-ms',
    'drain-deadline',
    'readback-deadline',
    'max-restarts',
    'skip',
    'replay',
    'max-body-bytes',
    'max-line-bytes',
    'partitions',
    'companion',
    'keep',
  ];
  for (const name of args.keys()) if (!known.includes(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
  const seedText = args.get('seed') ?? '1';
  const skip = new Set((args.get('skip') ?? '').split(',').filter(Boolean));
  for (const cls of skip)
    if (![...HTTP_CLASSES, ...GRPC_CLASSES].includes(cls as never)) throw new Error(`unknown class ${cls}\n${USAGE}`);
  return {
    requests: integer(args.get('requests') ?? '10000', '--requests'),
    seed: seedText === 'random' ? Math.floor(Math.random() * 2 ** 31) : integer(seedText, '--seed'),
    timeLimitMs: seconds(args.get('time-limit') ?? '15m') * 1000,
    concurrency: Math.max(1, integer(args.get('concurrency') ?? '8', '--concurrency')),
    deadlineMs: integer(args.get('deadline-ms') ?? '30000', '--deadline-ms'),
    slowMs: integer(args.get('slow-ms') ?? '5000', '--slow-ms'),
    drainDeadlineMs: seconds(args.get('drain-deadline') ?? '60s') * 1000,
    readbackDeadlineMs: seconds(args.get('readback-deadline') ?? '60s') * 1000,
    maxRestarts: integer(args.get('max-restarts') ?? '5', '--max-restarts'),
    skip,
    replay: args.has('replay')
      ? args
          .get('replay')!
          .split(',')
          .map((i) => integer(i, '--replay'))
      : undefined,
    maxBodyBytes: integer(args.get('max-body-bytes') ?? String(1024 * 1024), '--max-body-bytes'),
    maxLineBytes: integer(args.get('max-line-bytes') ?? String(64 * 1024), '--max-line-bytes'),
    partitions: Math.max(1, integer(args.get('partitions') ?? '8', '--partitions')),
    keep: args.has('keep'),
    companion: args.has('companion'),
  };
}

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-fuzz-'));
  log(
    `fuzz: ${args.replay ? `replaying ${args.replay.join(',')}` : `${args.requests} requests`}, seed ${args.seed}${args.skip.size ? `, skipping ${[...args.skip].join(',')}` : ''}; data in ${dataDir}`,
  );
  const stack = await startLocalStack({
    dataDir: path.join(dataDir, 'stack'),
    existing: { natsUrl: process.env.NATS_URL, influxUrl: process.env.INFLUX_URL, redisUrl: process.env.REDIS_URL },
    log: (line) => log(`[stack] ${line}`),
  });
  const companion = args.companion ? new FuzzCompanion() : undefined;
  await companion?.start();
  if (companion) log(`companion mode: ClearML stand-in on ${companion.clearml.url}`);
  const service = new FuzzService(stack, path.join(dataDir, 'service'), {
    maxBodyBytes: args.maxBodyBytes,
    maxLineBytes: args.maxLineBytes,
    partitions: args.partitions,
    env: companion?.env(args.deadlineMs),
  });
  let report: FuzzReport | undefined;
  try {
    await service.start();
    log(`service on http://127.0.0.1:${service.apiPort} and gRPC ${service.grpcPort} (log: ${service.logFile})`);
    const options: FuzzOptions = {
      ...args,
      maxLingering: 64,
      wellFormedEvery: 10,
      progressEveryMs: 5_000,
      log,
      companion,
    };
    report = await runFuzz(service, stack, options);
    printReport(report, (line) => process.stdout.write(`${line}\n`));
  } finally {
    await service.stop();
    await companion?.stop();
    await stack.stop();
    if (args.keep) log(`kept ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${summaryLine(report)}\n`);
  return passed(report) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `fuzz failed to run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(2);
  },
);
