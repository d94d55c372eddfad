/**
 * The main thread's side of an `all` process's writer thread: starts it,
 * starts it again after a crash (it is stateless: its partitions come back
 * through the leases), answers for it in /ready and /metrics, and stops it
 * in the worker phase (after the fronts stopped accepting, before the
 * store clients close).
 */
import { Worker } from 'node:worker_threads';
import type { ReadinessReport } from '../http/api-server.js';
import type { Logger } from '../observability/logger.js';
import type { Component, ReadinessCheck } from './component.js';
import type { HostRequest, ThreadMessage, WriterThreadData } from './writer-thread-messages.js';

/** Back-off before a crashed writer thread is started again. */
const RESTART_DELAY_MS = 1_000;

export class WriterThreadHost {
  private worker?: Worker;
  private running = false;
  private stopping = false;
  private nextId = 0;
  private restartTimer?: NodeJS.Timeout;
  private readonly pending = new Map<number, (message: ThreadMessage) => void>();

  constructor(
    private readonly entry: URL,
    private readonly data: WriterThreadData,
    private readonly logger: Logger,
    private readonly answerTimeoutMs: number,
  ) {}

  readonly component: Component = {
    name: 'writer-thread',
    phase: 'worker',
    start: () => this.spawn(),
    stop: () => this.stop(),
  };

  readonly readiness: ReadinessCheck = {
    name: 'writer-thread',
    check: async () => {
      const answer = await this.ask('ready');
      const report = (answer as { report: ReadinessReport }).report;
      if (!report.ready) {
        const failing = Object.entries(report.checks).filter(([, result]) => result !== 'ok');
        throw new Error(failing.map(([name, result]) => `${name}: ${result}`).join('; '));
      }
    },
  };

  /** The thread's metrics in the text exposition format ('' while it is not running: a scrape still answers). */
  async metrics(): Promise<string> {
    if (!this.running) return '';
    const answer = await this.ask('metrics').catch(() => undefined);
    return (answer as { text: string } | undefined)?.text ?? '';
  }

  private spawn(): Promise<void> {
    const worker = new Worker(this.entry, { workerData: this.data });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      worker.on('message', (message: ThreadMessage) => {
        if (message.type === 'started') {
          started = true;
          this.running = true;
          this.logger.info({ threadId: worker.threadId }, 'writer thread started');
          resolve();
        } else if (message.type === 'failed') {
          reject(new Error(`writer thread failed to start: ${message.message}`));
        } else if ('id' in message) {
          this.pending.get(message.id)?.(message);
          this.pending.delete(message.id);
        }
      });
      worker.on('error', (error) => {
        this.logger.error({ err: error }, 'writer thread crashed');
        if (!started) reject(error);
      });
      worker.on('exit', (code) => {
        this.running = false;
        if (this.worker === worker) this.worker = undefined;
        if (!started) reject(new Error(`writer thread exited with ${code} before it started`));
        else if (!this.stopping) {
          this.logger.error({ code, restartInMs: RESTART_DELAY_MS }, 'writer thread exited; starting it again');
          this.restartTimer = setTimeout(
            () =>
              void this.spawn().catch((error: unknown) =>
                this.logger.error({ err: error }, 'writer thread restart failed'),
              ),
            RESTART_DELAY_MS,
          );
        }
      });
    });
  }

  private ask(type: 'metrics' | 'ready'): Promise<ThreadMessage> {
    const worker = this.worker;
    if (!worker || !this.running) return Promise.reject(new Error('writer thread not running'));
    const id = this.nextId++;
    return new Promise<ThreadMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`writer thread gave no answer within ${this.answerTimeoutMs} ms`));
      }, this.answerTimeoutMs);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        resolve(message);
      });
      worker.postMessage({ type, id } satisfies HostRequest);
    });
  }

  private async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'stop' } satisfies HostRequest);
    // The service's phase timeout bounds the wait; a thread that has not exited by then is terminated.
    const timer = setTimeout(() => void worker.terminate(), this.data.config.SHUTDOWN_PHASE_TIMEOUT_MS * 3);
    await exited;
    clearTimeout(timer);
  }
}
