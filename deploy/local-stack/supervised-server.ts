/**
 * A server of the stack after it first came up: it keeps its port (clients
 * hold its URL), can be stopped and started again by the caller (the fault
 * bench stops a store for a while), and, when asked, is restarted after an
 * unexpected exit instead of leaving the service on a dead store. Restarts
 * back off from 1 s to 30 s while the server keeps dying.
 */
import type { ExitInfo, ServerProcess } from './server-process.js';
import { describeExit } from './start-server.js';

const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** Up this long after a restart: the next death starts the back-off over. */
const STABLE_MS = 60_000;

export interface SupervisedServerOptions {
  /** How log lines name it ("Redis", "redis node 127.0.0.1:7001", "ingest 1"). */
  label: string;
  /** Starts it again on its port and resolves once it answers; hands each process to onSpawned first. */
  respawn: (onSpawned: (child: ServerProcess) => void) => Promise<unknown>;
  restartOnExit: boolean;
  log: (line: string) => void;
  onUnexpectedExit?: (exit: ExitInfo) => void;
  /** Every process started, for the stack's pid list. */
  onSpawned: (child: ServerProcess) => void;
}

export class SupervisedServer {
  private child: ServerProcess;
  /** Stopped on purpose (stack stop, or a held server): an exit is not a failure. */
  private held = false;
  private backoffMs = FIRST_BACKOFF_MS;
  private upSince = Date.now();
  private restartTimer?: NodeJS.Timeout;
  private starting?: Promise<void>;

  constructor(
    private readonly options: SupervisedServerOptions,
    first: ServerProcess,
  ) {
    this.child = first;
    this.watch(first);
  }

  get pid(): number {
    return this.child.pid;
  }

  get running(): boolean {
    return !this.child.hasExited();
  }

  /** Stops the server and keeps it stopped until start(). */
  async stop(): Promise<void> {
    this.held = true;
    clearTimeout(this.restartTimer);
    await this.starting?.catch(() => undefined);
    await this.child.stop();
  }

  /** Starts a stopped (or dead) server again on its port; resolves once it answers. */
  async start(): Promise<void> {
    this.held = false;
    clearTimeout(this.restartTimer);
    if (this.running) return;
    this.starting ??= this.spawn().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async spawn(): Promise<void> {
    await this.options.respawn((child) => {
      this.child = child;
      this.upSince = Date.now();
      this.options.onSpawned(child);
      this.watch(child);
    });
  }

  private watch(child: ServerProcess): void {
    void child.exited.then((exit) => {
      if (this.held || child !== this.child) return;
      this.options.log(`${this.options.label} (pid ${child.pid}) exited unexpectedly: ${describeExit(exit)}`);
      this.options.onUnexpectedExit?.(exit);
      if (this.options.restartOnExit) this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    if (Date.now() - this.upSince >= STABLE_MS) this.backoffMs = FIRST_BACKOFF_MS;
    const { label } = this.options;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.options.log(`restarting ${label} in ${delay / 1000} s`);
    this.restartTimer = setTimeout(() => {
      if (this.held) return;
      this.start().catch((error: unknown) => {
        this.options.log(`${label} restart failed: ${(error as Error).message.split('\n')[0]}`);
        if (!this.held) this.scheduleRestart();
      });
    }, delay);
  }
}
