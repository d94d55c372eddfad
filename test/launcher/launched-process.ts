// The built executables as child processes, for the launcher tests: an environment on the
// test stack with a fresh data folder, output captured, and every child killed after each
// test. Requires `npm run build` (npm test does it).
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, inject } from 'vitest';
import '../harness/stack-context.js';

export const root = path.resolve(import.meta.dirname, '../..');
export const main = path.join(root, 'dist/shared/launcher/main.js');
export const runLocal = path.join(root, 'dist/deploy/bootstrap/run-local.js');

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.pid) child.kill('SIGKILL');
});

/** A child killed after the test if it is still running. */
export function track<T extends ChildProcess>(child: T): T {
  children.push(child);
  return child;
}

/** The environment of a target on the test stack: its own data folder, key pair, stream, key and database prefixes. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const stack = inject('stack');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-proc-'));
  const credentials = path.join(dataDir, 'credentials.json');
  writeFileSync(credentials, JSON.stringify([{ access_key: 'AK', secret_key: 'SK', company: 'c1', user: 'u1' }]));
  const suffix = Math.random().toString(16).slice(2, 10);
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    CREDENTIALS_FILE: credentials,
    NATS_URL: stack.natsUrl,
    INFLUX_URL: stack.influxUrl,
    REDIS_URL: stack.redisUrl,
    NATS_STREAM_PREFIX: `p${suffix}`,
    REDIS_KEY_PREFIX: `p${suffix}`,
    INFLUX_DB: `p${suffix}`,
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Starts `command args` with stdout and stderr captured together. */
export function startCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: SpawnOptions = {},
): { child: ChildProcess; output: () => string } {
  const child = track(spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...options }));
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output };
}

/** Starts a built script with this Node.js. */
export function start(
  script: string,
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  return startCommand(process.execPath, [script, ...args], env);
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code)),
  );

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
