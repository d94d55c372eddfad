/**
 * What the benchmarks share: a throwaway stack in a temporary folder on free
 * ports, and the service started as a child process (as operators run it),
 * so that the benchmark client does not share its event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort, startLocalStack, type LocalStack } from '../../deploy/local-stack/local-stack.js';
import type { ServerOptions } from '../../deploy/local-stack/server-configs.js';
import { loadConfig, type Config } from '../../shared/config/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface BenchService {
  baseUrl: string;
  /** The service's process id (for its CPU time). */
  pid: number;
  grpcPort: number;
  env: Record<string, string>;
  credential: { access_key: string; secret_key: string; company: string; user: string };
  stop(): Promise<void>;
}

export interface BenchEnvironment {
  stack: LocalStack;
  dataDir: string;
  startService(target?: string, extraEnv?: Record<string, string>): Promise<BenchService>;
  /** The configuration of a service run inside the benchmark's process (ports chosen by the OS), with `credential` as its only key. */
  inProcessConfig(credential: BenchCredential): Config;
  close(): Promise<void>;
}

export interface BenchCredential {
  access_key: string;
  secret_key: string;
  company: string;
  user: string;
  user_name?: string;
}

export function progress(line: string): void {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

export async function openBenchEnvironment(
  options: { settings?: Partial<ServerOptions> } = {},
): Promise<BenchEnvironment> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-bench-'));
  progress(`starting a throwaway stack in ${dataDir}`);
  const stack = await startLocalStack({
    dataDir: path.join(dataDir, 'stack'),
    log: (line) => progress(`[stack] ${line}`),
    settings: options.settings,
  });
  const services: BenchService[] = [];
  return {
    stack,
    dataDir,
    async startService(target = 'all', extraEnv = {}) {
      const [apiPort, grpcPort] = await Promise.all([findFreePort(), findFreePort()]);
      const credential = { access_key: 'BENCHKEY', secret_key: 'bench-secret', company: 'bench', user: 'bench-user' };
      const credentialsFile = path.join(dataDir, 'credentials.json');
      writeFileSync(credentialsFile, JSON.stringify([credential]));
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        DATA_DIR: path.join(dataDir, 'service'),
        CREDENTIALS_FILE: credentialsFile,
        API_PORT: String(apiPort),
        GRPC_PORT: String(grpcPort),
        NATS_URL: stack.natsUrl,
        INFLUX_URL: stack.influxUrl,
        REDIS_URL: stack.redisUrl,
        LOG_LEVEL: 'warn',
        // BENCH_SERVICE_ENV="INGEST_MAX_INFLIGHT_BYTES=134217728 ..." configures the service under test.
        ...Object.fromEntries(
          (process.env.BENCH_SERVICE_ENV ?? '')
            .split(' ')
            .filter(Boolean)
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
        ),
        ...extraEnv,
      };
      // BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service.
      const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
      const child: ChildProcess = spawn(
        process.execPath,
        [...nodeArgs, path.join(root, 'dist/shared/launcher/main.js'), target],
        { env, stdio: ['ignore', 'inherit', 'inherit'] },
      );
      const baseUrl = `http://127.0.0.1:${apiPort}`;
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
        const ready = await fetch(`${baseUrl}/ready`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ready) break;
        if (Date.now() > deadline) throw new Error('service not ready within 60 s');
        await new Promise((r) => setTimeout(r, 200));
      }
      const service: BenchService = {
        baseUrl,
        pid: child.pid!,
        grpcPort,
        env,
        credential,
        stop: async () => {
          if (child.exitCode !== null) return;
          child.kill('SIGTERM');
          await new Promise((resolve) => child.once('exit', resolve));
        },
      };
      services.push(service);
      return service;
    },
    inProcessConfig(credential) {
      const credentialsFile = path.join(dataDir, 'credentials.json');
      writeFileSync(credentialsFile, JSON.stringify([credential]));
      return loadConfig({
        API_PORT: '0',
        GRPC_PORT: '0',
        DATA_DIR: path.join(dataDir, 'service'),
        CREDENTIALS_FILE: credentialsFile,
        NATS_URL: stack.natsUrl,
        INFLUX_URL: stack.influxUrl,
        REDIS_URL: stack.redisUrl,
        LOG_LEVEL: 'warn',
      });
    },
    async close() {
      for (const service of services) await service.stop();
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const round = (value: number, digits = 2) => Number(value.toFixed(digits));
