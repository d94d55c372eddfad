/**
 * A NATS cluster of three nodes with JetStream on 127.0.0.1: each node has
 * its client port, route port and monitoring port, its data under
 * dataDir/nats-<n>, and routes to the other two. A node is ready when its
 * /healthz answers 200 (NatsNodeReadiness says which).
 */
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { httpStatus } from '../local-stack/readiness-probes.js';
import { natsConfigText } from '../local-stack/server-configs.js';
import { startSupervised, type SupervisionContext } from './supervised-process.js';
import type { SupervisedServer } from '../local-stack/supervised-server.js';

export interface NatsNodePorts {
  client: number;
  route: number;
  monitor: number;
}

export interface NatsCluster {
  /** The client URLs of every node, comma-separated (NATS_URL). */
  url: string;
  nodes: Array<{ label: string; ports: NatsNodePorts; process: SupervisedServer }>;
}

/**
 * What a node's start waits for: `replicas-current`, /healthz (the server,
 * its JetStream meta group, and every stream and consumer replica on it
 * current); `server`, /healthz?js-server-only=true (the server and its
 * meta group only: a replica that never catches up, the nats-server 2.9.10
 * limit of docs/faults.md, does not keep the node from being up).
 */
export type NatsNodeReadiness = 'replicas-current' | 'server';

const HEALTHZ: Record<NatsNodeReadiness, string> = {
  'replicas-current': '/healthz',
  server: '/healthz?js-server-only=true',
};

const healthy =
  (readiness: NatsNodeReadiness) =>
  async (url: string, timeoutMs: number): Promise<void> => {
    const status = await httpStatus(`${url}${HEALTHZ[readiness]}`, timeoutMs);
    if (status !== 200) throw new Error(`${HEALTHZ[readiness]} answered ${status}`);
  };

export async function startNatsCluster(options: {
  binary: string;
  dataDir: string;
  ports: readonly NatsNodePorts[];
  maxFileStoreBytes: number;
  context: SupervisionContext;
  /** Default `replicas-current`. */
  readiness?: NatsNodeReadiness;
}): Promise<NatsCluster> {
  const { ports } = options;
  const nodes = await Promise.all(
    ports.map(async (own, i) => {
      const label = `nats-${i + 1}`;
      const dir = join(options.dataDir, label);
      const configFile = join(dir, 'nats-server.conf');
      const process = await startSupervised(
        {
          label,
          binary: options.binary,
          args: ['-c', configFile],
          cwd: dir,
          logFile: join(dir, 'nats-server.log'),
          url: `http://127.0.0.1:${own.monitor}`,
          probe: healthy(options.readiness ?? 'replicas-current'),
          prepare: () =>
            writeFile(
              configFile,
              natsConfigText({
                port: own.client,
                storeDir: dir,
                maxFileStoreBytes: options.maxFileStoreBytes,
                cluster: {
                  serverName: label,
                  clusterName: 'clearml',
                  routePort: own.route,
                  routes: ports.filter((p) => p !== own).map((p) => p.route),
                  monitorPort: own.monitor,
                },
              }),
            ),
        },
        options.context,
      );
      return { label, ports: own, process };
    }),
  );
  return { url: ports.map((p) => `nats://127.0.0.1:${p.client}`).join(','), nodes };
}
