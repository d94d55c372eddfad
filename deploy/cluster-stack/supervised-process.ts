/**
 * Starts one process of the cluster stack (a store node, nginx, a service
 * target) and hands it to the local stack's supervisor: restarted on its
 * port after an unexpected exit when asked, stopped by pid.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ServerProcess } from '../local-stack/server-process.js';
import { spawnUntilReady, type SpawnSpec } from '../local-stack/start-server.js';
import { SupervisedServer } from '../local-stack/supervised-server.js';

/** Its working directory and the log file's directory are created when missing. */
export interface ProcessSpec extends SpawnSpec {
  /** Run before every start (rewrites a config file, for instance). */
  prepare?: () => Promise<void>;
}

export interface SupervisionContext {
  timeoutMs: number;
  restartOnExit: boolean;
  log: (line: string) => void;
  /** Every process spawned, first starts and restarts, so that the caller can stop each by pid. */
  onSpawned: (child: ServerProcess) => void;
}

export async function startSupervised(spec: ProcessSpec, context: SupervisionContext): Promise<SupervisedServer> {
  mkdirSync(spec.cwd, { recursive: true });
  mkdirSync(dirname(spec.logFile), { recursive: true });
  const run = async (onSpawned: (child: ServerProcess) => void) => {
    await spec.prepare?.();
    const started = await spawnUntilReady({ ...spec, timeoutMs: context.timeoutMs, onSpawned });
    if (started.kind === 'failed') throw started.error;
    context.log(`${spec.label} ready at ${spec.url} (pid ${started.pid})`);
  };
  let first: ServerProcess | undefined;
  await run((child) => {
    first = child;
    context.onSpawned(child);
  });
  return new SupervisedServer(
    {
      label: spec.label,
      respawn: run,
      restartOnExit: context.restartOnExit,
      log: context.log,
      onSpawned: context.onSpawned,
    },
    first!,
  );
}
