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
import { DEFAULT_SERVER_OPTIONS, type ServerOptions } from './server-configs.js';
import type { ExitInfo, ServerProcess } from './server-process.js';
import { SERVER_NAMES, STACK_SERVERS, type StackServer } from './stack-servers.js';
import { assertFixedPortsFree, combineErrors, startServer } from './start-server.js';
import { SupervisedServer } from './supervised-server.js';

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
  /** Start a server that died again, on its port, with a log line (what `npm start` does). */
  restartOnExit?: boolean;
  /** Durability and capacity settings of the servers started. */
  settings?: Partial<ServerOptions>;
}

export interface LocalStack {
  natsUrl: string;
  influxUrl: string;
  redisUrl: string;
  /** Every process this launcher started (restarts included). */
  readonly pids: number[];
  /** The current process of each server this launcher started. */
  pidOf(server: StackServer): number | undefined;
  /** Stops one server started here and keeps it stopped until startServer(). */
  stopServer(server: StackServer): Promise<void>;
  /** Starts a stopped server again on its port; resolves once it answers. */
  startServer(server: StackServer): Promise<void>;
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
  const settings: ServerOptions = { ...DEFAULT_SERVER_OPTIONS, ...options.settings };

  await assertFixedPortsFree(toStart, fixedPorts);
  const binaries: StackBinaries = toStart.length > 0 ? await ensureStackPackages(log, toStart) : {};

  const started: StartedServer[] = [];
  const onSpawned = (server: StackServer) => (child: ServerProcess) => started.push({ server, child });

  const settled = await Promise.allSettled(
    STACK_SERVERS.map((server) => {
      const url = existing[server];
      if (url) return waitForExistingServer(server, url, timeoutMs, log);
      return startServer({
        server,
        binary: binaries[server]!,
        dataDir,
        fixedPort: fixedPorts[server],
        settings,
        timeoutMs,
        log,
        onSpawned: onSpawned(server),
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
    await Promise.all(started.map(({ child }) => child.stop()));
    throw combineErrors(failures);
  }

  const urls = Object.fromEntries(
    STACK_SERVERS.map((server, i) => [server, (settled[i] as PromiseFulfilledResult<string>).value]),
  ) as Record<StackServer, string>;
  const pids = running.map(({ child }) => child.pid);
  const supervised = new Map<StackServer, SupervisedServer>();
  for (const { server, child } of running) {
    supervised.set(
      server,
      new SupervisedServer(
        {
          label: SERVER_NAMES[server].label,
          respawn: (onSpawned) =>
            startServer({
              server,
              binary: binaries[server]!,
              dataDir,
              fixedPort: Number(new URL(urls[server]).port),
              settings,
              timeoutMs,
              log,
              onSpawned,
            }),
          restartOnExit: options.restartOnExit ?? false,
          log,
          onUnexpectedExit: (exit) => options.onServerExit?.(server, exit),
          onSpawned: (next) => pids.push(next.pid),
        },
        child,
      ),
    );
  }
  const managed = (server: StackServer): SupervisedServer => {
    const found = supervised.get(server);
    if (!found) throw new Error(`${server} was not started by this stack (it was given by URL)`);
    return found;
  };
  let stopped: Promise<void> | undefined;
  return {
    natsUrl: urls.nats,
    influxUrl: urls.influxdb,
    redisUrl: urls.redis,
    pids,
    pidOf: (server) => supervised.get(server)?.pid,
    stopServer: (server) => managed(server).stop(),
    startServer: (server) => managed(server).start(),
    stop() {
      stopped ??= Promise.all([...supervised.values()].map((s) => s.stop())).then(() => {});
      return stopped;
    },
  };
}
