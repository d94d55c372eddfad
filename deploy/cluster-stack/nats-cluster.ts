/**
 * A NATS cluster of three nodes with JetStream on 127.0.0.1: each node has
 * its client port, route port and monitoring port, its data under
 * dataDir/nats-<n>, and routes to the other two. A node is ready when its
 * /healthz answers 200, which nats-server gives once JetStream (meta group
 * included) is current.
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

async function healthy(url: string, timeoutMs: number): Promise<void> {
  const status = await httpStatus(`${url}/healthz`, timeoutMs);
  if (status !== 200) throw new Error(`/healthz answered ${status}`);
}

export async function startNatsCluster(options: {
  binary: string;
  dataDir: string;
  ports: readonly NatsNodePorts[];
  maxFileStoreBytes: number;
  context: SupervisionContext;
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
          probe: healthy,
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
