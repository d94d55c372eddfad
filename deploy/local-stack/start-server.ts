/**
 * Starts one server of the stack and waits until it answers; on failure the
 * error names the server and quotes the end of its log.
 */
import { join } from 'node:path';
import { findFreePort, isPortFree } from './free-port.js';
import { prepareServerCommand } from './server-command.js';
import type { ServerOptions } from './server-configs.js';
import { fileSize, spawnServer, tailOfFile, type ExitInfo, type ServerProcess } from './server-process.js';
import { SERVER_NAMES, type StackServer } from './stack-servers.js';
import { probeFor, waitUntilReady, type ReadyOutcome } from './wait-ready.js';

// A free port picked by us can be taken before the server binds it.
const MAX_ATTEMPTS = 3;

export async function startServer(options: {
  server: StackServer;
  binary: string;
  dataDir: string;
  /** 0: any free port. */
  fixedPort: number;
  settings: ServerOptions;
  timeoutMs: number;
  log: (line: string) => void;
  /** Called as soon as a process exists, so the caller can stop it whatever happens next. */
  onSpawned: (child: ServerProcess) => void;
}): Promise<string> {
  const { server, fixedPort, log } = options;
  const { label } = SERVER_NAMES[server];
  const serverDir = join(options.dataDir, server);
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort || (await findFreePort());
    const command = await prepareServerCommand(server, serverDir, port, options.settings);
    const logStart = await fileSize(command.logFile);
    log(`starting ${label} on 127.0.0.1:${port} (log: ${command.logFile})`);
    const started = await spawnUntilReady({
      label,
      binary: options.binary,
      args: command.args,
      cwd: serverDir,
      logFile: command.logFile,
      url: command.url,
      probe: probeFor(server, true),
      timeoutMs: options.timeoutMs,
      onSpawned: options.onSpawned,
    });
    if (started.kind === 'ready') {
      log(`${label} ready at ${command.url} (pid ${started.pid})`);
      return command.url;
    }
    if (started.outcome.kind === 'exited' && /address already in use/i.test(started.tail)) {
      if (fixedPort && !(await isPortFree(fixedPort))) throw busyPortError(server, fixedPort);
      if (attempt < MAX_ATTEMPTS) {
        log(`${label}: a port was taken before it could bind; retrying on other ports`);
        continue;
      }
    }
    throw started.error;
  }
}

export type SpawnOutcome =
  | { kind: 'ready'; pid: number }
  | { kind: 'failed'; outcome: Exclude<ReadyOutcome, { kind: 'ready' }>; tail: string; error: Error };

/** One process to start: what to run, where it logs, and how to tell that it answers. */
export interface SpawnSpec {
  label: string;
  binary: string;
  args: string[];
  cwd: string;
  logFile: string;
  env?: NodeJS.ProcessEnv;
  /** Where `probe` checks that it answers. */
  url: string;
  probe: (url: string, timeoutMs: number) => Promise<void>;
}

/**
 * Starts one process and waits until `probe` says it answers at `url`; on
 * failure, an error naming it and quoting the end of its log. Shared by the
 * local stack and the cluster stack (nodes, nginx, service processes).
 */
export async function spawnUntilReady(
  options: SpawnSpec & { timeoutMs: number; onSpawned: (child: ServerProcess) => void },
): Promise<SpawnOutcome> {
  const logStart = await fileSize(options.logFile);
  const child = await spawnServer({
    binary: options.binary,
    args: options.args,
    cwd: options.cwd,
    logFile: options.logFile,
    env: options.env,
  });
  options.onSpawned(child);
  const outcome = await waitUntilReady({
    url: options.url,
    probe: options.probe,
    timeoutMs: options.timeoutMs,
    exited: child.exited,
  });
  if (outcome.kind === 'ready') return { kind: 'ready', pid: child.pid };
  const tail = await tailOfFile(options.logFile, logStart);
  const what =
    outcome.kind === 'exited'
      ? `exited during start-up (${describeExit(outcome.exit)})`
      : `did not answer within ${options.timeoutMs} ms (last check: ${outcome.lastError})`;
  return {
    kind: 'failed',
    outcome,
    tail,
    error: new Error(`${options.label} ${what}. The end of its log ${options.logFile}:\n${tail}`),
  };
}

/** Checked before anything starts, so that a busy port costs no start-up. */
export async function assertFixedPortsFree(
  servers: readonly StackServer[],
  ports: Readonly<Record<StackServer, number>>,
): Promise<void> {
  const busy: Error[] = [];
  for (const server of servers) {
    const port = ports[server];
    if (port && !(await isPortFree(port))) busy.push(busyPortError(server, port));
  }
  if (busy.length > 0) throw combineErrors(busy);
}

export function combineErrors(errors: readonly unknown[]): Error {
  if (errors.length === 1 && errors[0] instanceof Error) return errors[0];
  return new Error(errors.map((error) => (error instanceof Error ? error.message : String(error))).join('\n\n'));
}

export function describeExit(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

function busyPortError(server: StackServer, port: number): Error {
  const { label, portVar, urlVar, systemUnit } = SERVER_NAMES[server];
  return new Error(
    `${label} cannot listen on 127.0.0.1:${port}: the port is busy. ` +
      `Set ${portVar} to a free port (0 picks any free port), or set ${urlVar} to use the server ` +
      `already listening there. If it is the Debian ${systemUnit} service, ` +
      `"sudo systemctl disable --now ${systemUnit}" frees the port.`,
  );
}
