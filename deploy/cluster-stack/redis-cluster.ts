/**
 * A Redis Cluster of three masters with one replica each, on 127.0.0.1:
 * six redis-server processes in cluster mode (data under
 * dataDir/redis-<n>), joined once by `redis-cli --cluster create`. Each
 * node keeps its identity in nodes.conf, so a restart (of one node, or of
 * the whole stack on the same ports) finds the cluster already made.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { redisPing } from '../local-stack/readiness-probes.js';
import { redisConfigText, type ServerOptions } from '../local-stack/server-configs.js';
import type { SupervisedServer } from '../local-stack/supervised-server.js';
import { startSupervised, type SupervisionContext } from './supervised-process.js';

const run = promisify(execFile);

export interface RedisNodePorts {
  port: number;
  bus: number;
}

export interface RedisCluster {
  /** Every node's URL, comma-separated (REDIS_URL: seeds of the cluster client). */
  url: string;
  nodes: Array<{ label: string; ports: RedisNodePorts; process: SupervisedServer }>;
}

/** A master that goes silent is replaced by its replica after this long. */
const NODE_TIMEOUT_MS = 2_000;
const POLL_MS = 100;

export async function startRedisCluster(options: {
  binary: string;
  cliBinary: string;
  dataDir: string;
  ports: readonly RedisNodePorts[];
  appendFsync: ServerOptions['redisAppendFsync'];
  context: SupervisionContext;
}): Promise<RedisCluster> {
  const nodes = await Promise.all(
    options.ports.map(async (ports, i) => {
      const label = `redis-${i + 1}`;
      const dir = join(options.dataDir, label);
      const configFile = join(dir, 'redis.conf');
      const logFile = join(dir, 'redis-server.log');
      const process = await startSupervised(
        {
          label,
          binary: options.binary,
          args: [configFile],
          cwd: dir,
          logFile,
          url: `redis://127.0.0.1:${ports.port}`,
          probe: redisPing,
          prepare: () =>
            writeFile(
              configFile,
              redisConfigText({
                port: ports.port,
                dir,
                logFile,
                appendFsync: options.appendFsync,
                cluster: { busPort: ports.bus, nodeTimeoutMs: NODE_TIMEOUT_MS },
              }),
            ),
        },
        options.context,
      );
      return { label, ports, process };
    }),
  );
  const cli = (port: number, ...args: string[]) =>
    run(options.cliBinary, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 30_000 });
  const first = options.ports[0]!.port;
  if (clusterInfo((await cli(first, 'CLUSTER', 'INFO')).stdout).cluster_known_nodes !== String(options.ports.length)) {
    options.context.log(`creating the Redis Cluster (${options.ports.length / 2} masters, 1 replica each)`);
    await run(
      options.cliBinary,
      [
        '--cluster',
        'create',
        ...options.ports.map((p) => `127.0.0.1:${p.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );
  }
  await waitClusterOk(
    options.ports.map((p) => p.port),
    cli,
    options.context.timeoutMs,
  );
  return { url: options.ports.map((p) => `redis://127.0.0.1:${p.port}`).join(','), nodes };
}

export function clusterInfo(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .map((line) => line.split(':'))
      .filter((parts) => parts.length === 2)
      .map(([key, value]) => [key!.trim(), value!.trim()]),
  );
}

/** Every node sees all slots served, and knows every other node. */
async function waitClusterOk(
  ports: number[],
  cli: (port: number, ...args: string[]) => Promise<{ stdout: string }>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    const infos = await Promise.all(
      ports.map((port) =>
        cli(port, 'CLUSTER', 'INFO').then(
          (r) => clusterInfo(r.stdout),
          (e: Error) => ({ error: e.message }) as Record<string, string>,
        ),
      ),
    );
    const pending = infos.flatMap((info, i) =>
      info.cluster_state === 'ok' && info.cluster_known_nodes === String(ports.length)
        ? []
        : [`${ports[i]}: ${info.cluster_state ?? info.error}`],
    );
    if (pending.length === 0) return;
    last = pending.join(', ');
    if (Date.now() > deadline) throw new Error(`the Redis Cluster did not become ok within ${timeoutMs} ms (${last})`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
