/**
 * Starts NATS (JetStream), InfluxDB and Redis as child processes bound to
 * 127.0.0.1, each with its data, config and log under one data directory.
 * `npm start` uses it for a persistent stack on fixed ports, the test suite
 * for a throwaway one on free ports. Servers given by URL are only waited for.
 * Nothing global is registered here: signals are the caller's business.
 */
import { resolve } from 'node:path';
import { waitForExistingServer } from './existing-server.js';
import { ensureStackPackages, type StackBinaries } from './install-packages.js';
import type { ExitInfo, ServerProcess } from './server-process.js';
import { SERVER_NAMES, STACK_SERVERS, type StackServer } from './stack-servers.js';
import { assertFixedPortsFree, combineErrors, describeExit, startServer } from './start-server.js';

export { findFreePort } from './free-port.js';

export interface LocalStackOptions {
  /** Each server's data goes in dataDir/<nats|influxdb|redis>. */
  dataDir: string;
  /** 0 or undefined: pick a free port. */
  natsPort?: number;
  influxPort?: number;
  redisPort?: number;
  /** A given URL: do not start that server, just wait for it to answer. */
  existing?: { natsUrl?: string; influxUrl?: string; redisUrl?: string };
  log?: (line: string) => void;
  /** Per server; default 30000. */
  readyTimeoutMs?: number;
  /** A started server died while the stack was up (not during stop()). */
  onServerExit?: (server: StackServer, exit: ExitInfo) => void;
}

export interface LocalStack {
  natsUrl: string;
  influxUrl: string;
  redisUrl: string;
  /** Processes this launcher started. */
  pids: number[];
  /** SIGTERM each started process, SIGKILL after 10 s; idempotent. */
  stop(): Promise<void>;
}

interface StartedServer {
  server: StackServer;
  child: ServerProcess;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const dataDir = resolve(options.dataDir);
  const log = options.log ?? (() => {});
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  const existing: Record<StackServer, string | undefined> = {
    nats: options.existing?.natsUrl || undefined,
    influxdb: options.existing?.influxUrl || undefined,
    redis: options.existing?.redisUrl || undefined,
  };
  const fixedPorts: Record<StackServer, number> = {
    nats: options.natsPort ?? 0,
    influxdb: options.influxPort ?? 0,
    redis: options.redisPort ?? 0,
  };
  const toStart = STACK_SERVERS.filter((server) => !existing[server]);

  await assertFixedPortsFree(toStart, fixedPorts);
  const binaries: StackBinaries = toStart.length > 0 ? await ensureStackPackages(log, toStart) : {};

  const started: StartedServer[] = [];
  let stopping = false;
  const stopStarted = () => Promise.all(started.map(({ child }) => child.stop())).then(() => {});

  const settled = await Promise.allSettled(
    STACK_SERVERS.map((server) => {
      const url = existing[server];
      if (url) return waitForExistingServer(server, url, timeoutMs, log);
      return startServer({
        server,
        binary: binaries[server]!,
        dataDir,
        fixedPort: fixedPorts[server],
        timeoutMs,
        log,
        onSpawned: (child) => started.push({ server, child }),
      });
    }),
  );
  const failures = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
  // Earlier attempts that lost their port are dead; a server that died right
  // after answering would be dead too, and is a failure.
  const running = started.filter(({ child }) => !child.hasExited());
  if (failures.length === 0 && running.length < toStart.length) {
    failures.push(new Error('a server exited right after it started; see the logs under ' + dataDir));
  }
  if (failures.length > 0) {
    stopping = true;
    await stopStarted();
    throw combineErrors(failures);
  }

  for (const { server, child } of running) {
    void child.exited.then((exit) => {
      if (stopping) return;
      log(`${SERVER_NAMES[server].label} (pid ${child.pid}) exited unexpectedly: ${describeExit(exit)}`);
      options.onServerExit?.(server, exit);
    });
  }
  const [natsUrl, influxUrl, redisUrl] = settled.map((result) =>
    result.status === 'fulfilled' ? result.value : '',
  ) as [string, string, string];
  let stopped: Promise<void> | undefined;
  return {
    natsUrl,
    influxUrl,
    redisUrl,
    pids: running.map(({ child }) => child.pid),
    stop() {
      stopping = true;
      stopped ??= stopStarted();
      return stopped;
    },
  };
}
