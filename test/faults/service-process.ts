/**
 * One target of the split deployment (ingest, writer or query) as a child
 * process of the fault bench, on ports chosen once for the whole run, so
 * that clients keep their URLs across restarts. Faults go to its pid.
 * Processes run in their own process group (like the stores), so a Ctrl-C
 * in the terminal reaches only the bench, which then stops them itself.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  answersReady,
  LAUNCHER,
  repositoryRoot,
  type ServiceTarget,
} from '../../deploy/cluster-stack/service-target.js';
import { spawnServer, type ServerProcess } from '../../deploy/local-stack/server-process.js';
import { waitUntilReady } from '../../deploy/local-stack/wait-ready.js';

export type { ServiceTarget };
export { LAUNCHER };

const READY_TIMEOUT_MS = 60_000;

/** Sends a signal to a pid the bench started; a process that is already gone is not an error. */
export function sendSignal(pid: number | undefined, name: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

export class ServiceProcess {
  private child?: ServerProcess;
  /** Stopped for good: a restart still under way (a kill scenario on Ctrl-C) must not start it again. */
  private closed = false;
  /** Every pid this object started. */
  readonly pids: number[] = [];

  constructor(
    readonly target: ServiceTarget,
    readonly baseUrl: string,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  get pid(): number | undefined {
    return this.child && !this.child.hasExited() ? this.child.pid : undefined;
  }

  /** Starts the target (if it is not running) and resolves once its /ready answers 200. */
  async start(): Promise<void> {
    if (this.closed) throw new Error(`${this.target} was stopped for good`);
    if (this.pid === undefined) {
      this.child = await spawnServer({
        binary: process.execPath,
        args: [LAUNCHER, this.target],
        cwd: repositoryRoot(),
        logFile: path.join(this.logDir, `${this.target}.log`),
        env: this.env,
      });
      this.pids.push(this.child.pid);
    }
    await this.waitReady(READY_TIMEOUT_MS);
  }

  async waitReady(timeoutMs: number): Promise<void> {
    const child = this.child;
    if (!child) throw new Error(`${this.target} was never started`);
    const outcome = await waitUntilReady({ url: this.baseUrl, probe: answersReady, timeoutMs, exited: child.exited });
    if (outcome.kind === 'exited')
      throw new Error(`${this.target} exited (${JSON.stringify(outcome.exit)}); see ${child.logFile}`);
    if (outcome.kind === 'timeout')
      throw new Error(`${this.target} not ready within ${timeoutMs} ms: ${outcome.lastError}; see ${child.logFile}`);
  }

  /** Sends a signal to the current process (SIGSTOP, SIGCONT); nothing when it is not running. */
  signal(name: NodeJS.Signals): void {
    sendSignal(this.pid, name);
  }

  /** kill -9, resolved once the process is reaped. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.hasExited()) return;
    this.signal('SIGKILL');
    await child.exited;
  }

  /** SIGTERM (after a SIGCONT, in case it was stalled), SIGKILL after 10 s. */
  async stop(): Promise<void> {
    this.closed = true;
    this.signal('SIGCONT');
    await this.child?.stop();
  }
}
