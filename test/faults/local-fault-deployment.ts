/**
 * What `npm run faults` breaks: a throwaway stack (NATS, InfluxDB, Redis on
 * free 127.0.0.1 ports, in a temporary folder) and the split deployment, one
 * ingest, one writer and one query process. Stores run with the stack's
 * restartOnExit (what `npm start` does): a store killed with -9 is started
 * again by the stack's supervisor on its port, after its 1 s back-off; the
 * bench restarts the service processes itself. Everything started here is
 * stopped by pid in stop().
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFreePort, startLocalStack, type LocalStack } from '../../deploy/local-stack/local-stack.js';
import type { StackServer } from '../../deploy/local-stack/stack-servers.js';
import { probeFor, waitUntilReady } from '../../deploy/local-stack/wait-ready.js';
import { benchCredential, BENCH_PARTITIONS, BENCH_PREFIX, type FaultDeployment } from './fault-deployment.js';
import { sendSignal, ServiceProcess, type ServiceTarget } from './service-process.js';

export type Component = ServiceTarget | StackServer;

export const SERVICE_TARGETS: readonly ServiceTarget[] = ['ingest', 'writer', 'query'];

export interface LocalFaultDeployment extends FaultDeployment {
  readonly stack: LocalStack;
  readonly services: Readonly<Record<ServiceTarget, ServiceProcess>>;
  /** The current pid of a component (undefined while it is down). */
  pidOf(component: Component): number | undefined;
  /** A clean stop of a store (held down until startStore). */
  stopStore(server: StackServer): Promise<void>;
  /** Starts a stopped store again; refused once the deployment is stopping. */
  startStore(server: StackServer): Promise<void>;
  /** Waits until a store answers again on its port (after a restart by the supervisor). */
  waitStoreUp(server: StackServer, timeoutMs: number): Promise<void>;
}

const STORES: readonly StackServer[] = ['nats', 'influxdb', 'redis'];

export async function openLocalFaultDeployment(options: {
  log: (line: string) => void;
  dataDir?: string;
}): Promise<LocalFaultDeployment> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'clearml-faults-'));
  const stack = await startLocalStack({
    dataDir: path.join(dataDir, 'stack'),
    restartOnExit: true,
    log: (line) => options.log(`[stack] ${line}`),
  });
  const services: Partial<Record<ServiceTarget, ServiceProcess>> = {};
  let stopped: Promise<void> | undefined;
  const stop = (keep = false) => {
    stopped ??= (async () => {
      // The service before its stores, as an operator would; SIGCONT first (ServiceProcess.stop does
      // it for services): a stalled process acts on SIGTERM only once it runs again.
      await Promise.all(Object.values(services).map((service) => service.stop()));
      for (const server of STORES) sendSignal(stack.pidOf(server), 'SIGCONT');
      await stack.stop();
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    const credentials = [benchCredential('company-a'), benchCredential('company-b')] as const;
    const credentialsFile = path.join(dataDir, 'credentials.json');
    writeFileSync(credentialsFile, JSON.stringify(credentials));
    const common: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      CREDENTIALS_FILE: credentialsFile,
      // One secret for every process: a token from the query process's auth.login works on ingest.
      AUTH_SECRET: randomBytes(36).toString('base64url'),
      NATS_URL: stack.natsUrl,
      INFLUX_URL: stack.influxUrl,
      REDIS_URL: stack.redisUrl,
      NATS_STREAM_PREFIX: BENCH_PREFIX,
      NATS_PARTITIONS: String(BENCH_PARTITIONS),
      REDIS_KEY_PREFIX: BENCH_PREFIX,
      INFLUX_DB: BENCH_PREFIX,
      LOG_LEVEL: 'warn',
    };
    const grpcPort = await findFreePort();
    for (const target of SERVICE_TARGETS) {
      const apiPort = await findFreePort();
      const env = {
        ...common,
        API_PORT: String(apiPort),
        // Only ingest listens on it; the others get a free one so that no default port is taken.
        GRPC_PORT: String(target === 'ingest' ? grpcPort : await findFreePort()),
        DATA_DIR: path.join(dataDir, target),
      };
      services[target] = new ServiceProcess(target, `http://127.0.0.1:${apiPort}`, env, path.join(dataDir, 'logs'));
    }
    const started = services as Record<ServiceTarget, ServiceProcess>;
    // Ingest and writer both create the streams if missing, so any order works.
    await Promise.all(SERVICE_TARGETS.map((target) => started[target].start()));
    const waitStoreUp = async (server: StackServer, timeoutMs: number) => {
      const url = { nats: stack.natsUrl, influxdb: stack.influxUrl, redis: stack.redisUrl }[server];
      const outcome = await waitUntilReady({ url, probe: probeFor(server, true), timeoutMs });
      if (outcome.kind !== 'ready') throw new Error(`${server} did not answer within ${timeoutMs} ms`);
    };
    return {
      dataDir,
      stack,
      services: started,
      ingestUrl: started.ingest.baseUrl,
      grpcAddress: `127.0.0.1:${grpcPort}`,
      queryUrl: started.query.baseUrl,
      natsUrl: stack.natsUrl,
      streamPrefix: BENCH_PREFIX,
      partitions: BENCH_PARTITIONS,
      credentials,
      pidOf: (component) => (isServiceTarget(component) ? started[component].pid : stack.pidOf(component)),
      // The stores are restarted by the stack's supervisor: their pids change with every store fault.
      processPids: () => Object.fromEntries(SERVICE_TARGETS.map((t) => [t, started[t].pid])),
      async ensureUp(timeoutMs, log) {
        for (const server of STORES) await waitStoreUp(server, timeoutMs);
        for (const t of SERVICE_TARGETS) {
          const service = started[t];
          if (service.pid === undefined) {
            log(`  ${t} is not running (left so by the previous scenario): starting it`);
            await service.start();
          } else await service.waitReady(timeoutMs);
        }
      },
      waitStoreUp,
      stopStore: (server) => stack.stopServer(server),
      async startStore(server) {
        if (stopped) throw new Error('the deployment is stopping');
        await stack.startServer(server);
      },
      stop: (stopOptions) => stop(stopOptions?.keep),
    };
  } catch (error) {
    await stop(true);
    throw error;
  }
}

export function isServiceTarget(component: Component): component is ServiceTarget {
  return (SERVICE_TARGETS as readonly string[]).includes(component);
}
