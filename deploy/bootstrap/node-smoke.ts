/**
 * A smoke test of the service on a given Node.js binary, as `npm start`
 * runs it (deploy/bootstrap/run-local.ts, built in dist/): it starts, logs
 * in (auth.login), takes an events.add_batch of a scalar and a log line,
 * answers them back (events.get_task_log, events.scalar_metrics_iter_histogram),
 * and stops with exit code 0 on SIGTERM. Used by `npm run check:node` and
 * the Node.js versions test.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '../local-stack/local-stack.js';

/** The repository: two folders up from this source, three from its build in dist/. */
const ROOT = ['../..', '../../..']
  .map((up) => path.resolve(path.dirname(fileURLToPath(import.meta.url)), up))
  .find((dir) => existsSync(path.join(dir, 'package.json')))!;
const RUN_LOCAL = path.join(ROOT, 'dist', 'deploy', 'bootstrap', 'run-local.js');
const DEADLINE_MS = 90_000;

export interface SmokeOptions {
  /** Added to the environment: existing store URLs (NATS_URL, ...) and prefixes, or local stack ports. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

/**
 * The environment of an `npm start` runner of its own: data under `dataDir`,
 * every port free (the API's first), warnings and errors logged only.
 */
export async function runnerEnv(dataDir: string): Promise<[number, Record<string, string>]> {
  const [apiPort, natsPort, influxPort, redisPort] = await Promise.all([
    findFreePort(),
    findFreePort(),
    findFreePort(),
    findFreePort(),
  ]);
  return [
    apiPort,
    {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      API_PORT: String(apiPort),
      GRPC_PORT: '0',
      NATS_PORT: String(natsPort),
      INFLUX_PORT: String(influxPort),
      REDIS_PORT: String(redisPort),
      LOG_LEVEL: 'warn',
    },
  ];
}

/** Resolves with the version the binary reported once every step passed; throws naming the step that failed. */
export async function smokeTest(nodeBinary: string, options: SmokeOptions = {}): Promise<string> {
  const log = options.log ?? (() => {});
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-node-smoke-'));
  const [apiPort, env] = await runnerEnv(dataDir);
  Object.assign(env, options.env);
  const child = spawn(nodeBinary, [RUN_LOCAL], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + DEADLINE_MS;
  const step = async <T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> => {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`${what}: the service exited (${child.exitCode}):\n${output.slice(-2000)}`);
      const value = await attempt().catch(() => undefined);
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what}: not done within ${DEADLINE_MS} ms:\n${output.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const base = `http://127.0.0.1:${apiPort}`;
  try {
    await step('start', async () => (output.includes('Stop with Ctrl-C.') ? true : undefined));
    const version = await runningVersion(base);
    log(`Node.js ${version}: started`);
    const [{ access_key, secret_key }] = JSON.parse(
      readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'),
    ) as Array<{ access_key: string; secret_key: string }>;
    const login = await call(base, 'auth.login', undefined, {
      authorization: `Basic ${Buffer.from(`${access_key}:${secret_key}`).toString('base64')}`,
    });
    const token = (login.data as { token?: string }).token;
    if (!token) throw new Error(`auth.login: no token in ${JSON.stringify(login).slice(0, 300)}`);
    const auth = { authorization: `Bearer ${token}` };
    const task = `smoke-${Date.now().toString(36)}`;
    const added = await call(
      base,
      'events.add_batch',
      [
        JSON.stringify({
          type: 'training_stats_scalar',
          task,
          iter: 1,
          metric: 'loss',
          variant: 'train',
          value: 0.5,
          timestamp: 1_700_000_000_000,
        }),
        JSON.stringify({
          type: 'log',
          task,
          iter: 1,
          msg: 'hello from the smoke test',
          level: 'info',
          timestamp: 1_700_000_000_000,
        }),
      ].join('\n'),
      { ...auth, 'content-type': 'application/json-lines' },
    );
    if ((added.data as { added?: number }).added !== 2)
      throw new Error(`events.add_batch: ${JSON.stringify(added).slice(0, 300)}`);
    await step('events.get_task_log', async () => {
      const answer = await call(base, 'events.get_task_log', JSON.stringify({ task, batch_size: 10 }), auth);
      const events = (answer.data as { events?: Array<{ msg?: string }> }).events ?? [];
      return events.some((e) => e.msg === 'hello from the smoke test') ? true : undefined;
    });
    await step('events.scalar_metrics_iter_histogram', async () => {
      const answer = await call(base, 'events.scalar_metrics_iter_histogram', JSON.stringify({ task }), auth);
      const y = (answer.data as { loss?: { train?: { y?: number[] } } }).loss?.train?.y;
      return y?.[0] === 0.5 ? true : undefined;
    });
    log(`Node.js ${version}: auth.login, events.add_batch and the reads answered`);
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0) throw new Error(`stop: exit code ${code}:\n${output.slice(-2000)}`);
    return version;
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function call(
  base: string,
  operation: string,
  body: string | undefined,
  headers: Record<string, string>,
): Promise<{ data: unknown }> {
  const response = await fetch(`${base}/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: body ?? '{}',
  });
  const envelope = (await response.json()) as { data?: unknown; meta?: unknown };
  if (response.status !== 200)
    throw new Error(`${operation}: ${response.status} ${JSON.stringify(envelope).slice(0, 300)}`);
  return { data: envelope.data ?? {} };
}

/** The version the service reports in clearml_build_info. */
async function runningVersion(base: string): Promise<string> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  return /clearml_build_info\{[^}]*node_version="(v[\d.]+)"/.exec(metrics)?.[1] ?? 'unknown';
}
