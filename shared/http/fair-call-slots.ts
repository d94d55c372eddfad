/**
 * Shares a kind of call between companies: a process runs at most `limit`
 * calls of the kind at once, a company at most a quarter of them, and a freed
 * slot goes to the companies with calls waiting in turn.
 *
 * Reads: nothing bounded the reads a company had in flight. While company A
 * had 500 scalar_metrics_iter_histogram calls going, company B's single call
 * of the same took 8.5 s instead of 31-65 ms, every one of A's queries
 * running in InfluxDB (and on this event loop) beside B's.
 *
 * Deletions: a deletion runs in the writers at its place in its entity's
 * partition, and the partition's events wait behind it. While company A had
 * 299 delete_for_task calls going, company B's next event took 4.8 s to be
 * visible instead of ~0.1 s: every partition was queued with A's deletions.
 *
 * A company may hold at most a quarter of the slots, so another company
 * always finds a slot free or the next one freed. Calls beyond wait in their
 * company's line; a freed slot goes to the companies with calls waiting in
 * turn (round robin), not to whoever asked first, so B's call waits for at
 * most one of A's, however many A has waiting. A company's line holds at most
 * a quarter of `maxWaiting` calls; beyond, a call is refused at once (429 with
 * Retry-After). docs/protocol.md, "Calls shared between companies".
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { apiError, type ErrorId } from '../errors/error-catalogue.js';

/** Gives a slot back; calling it again does nothing. */
export type SlotRelease = () => void;

interface Waiter {
  grant: (release: SlotRelease) => void;
  since: number;
}

interface CompanyLine {
  running: number;
  waiting: Waiter[];
}

/** A kind of call that is shared out: its name in metrics and its refusal. */
export interface CallLane {
  /** `read` or `deletion`: the metrics are clearml_<name>_calls_running and so on. */
  readonly name: string;
  /** The settings of its bounds, for the metrics' help texts. */
  readonly limitSetting: string;
  readonly waitingSetting: string;
  /** The catalogue entry of a call refused because its company's line is full. */
  readonly refusal: ErrorId;
}

interface SlotMetrics {
  running: Gauge;
  waiting: Gauge;
  refused: Counter;
  wait: Histogram;
}

export class FairCallSlots {
  private running = 0;
  private waitingCount = 0;
  private readonly lines = new Map<string, CompanyLine>();
  /** Companies with calls waiting, the next to be served first. */
  private readonly turns: string[] = [];
  private readonly metrics: SlotMetrics | undefined;
  readonly perCompany: number;
  readonly waitingPerCompany: number;

  constructor(
    readonly lane: CallLane,
    readonly limit: number,
    readonly maxWaiting: number,
    registry?: Registry,
  ) {
    this.perCompany = Math.max(1, Math.floor(limit / 4));
    this.waitingPerCompany = Math.max(1, Math.floor(maxWaiting / 4));
    this.metrics = registry ? slotMetrics(lane, registry) : undefined;
  }

  /**
   * A slot for one call of `company`, at once or once its turn comes. Refused
   * (429) when the company's line is full; rejected with the signal's reason
   * when the caller goes away while waiting.
   */
  acquire(company: string, signal: AbortSignal): Promise<SlotRelease> {
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const line = this.lineOf(company);
    if (line.waiting.length >= this.waitingPerCompany) {
      this.metrics?.refused.inc();
      return Promise.reject(
        apiError(this.lane.refusal, `at most ${this.waitingPerCompany} waiting for a company`, undefined, {
          headers: { 'retry-after': '1' },
        }),
      );
    }
    return new Promise<SlotRelease>((resolve, reject) => {
      const onAbort = () => {
        const at = line.waiting.indexOf(waiter);
        if (at < 0) return;
        line.waiting.splice(at, 1);
        this.waitingCount--;
        if (line.waiting.length === 0) this.dropTurn(company);
        this.forgetIfIdle(company, line);
        this.updateGauges();
        reject(signal.reason);
      };
      const waiter: Waiter = {
        since: performance.now(),
        grant: (release) => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      line.waiting.push(waiter);
      this.waitingCount++;
      if (line.waiting.length === 1) this.turns.push(company);
      this.dispatch();
    });
  }

  get runningCount(): number {
    return this.running;
  }

  get waitingTotal(): number {
    return this.waitingCount;
  }

  private dispatch(): void {
    while (this.running < this.limit) {
      const at = this.turns.findIndex((company) => this.lines.get(company)!.running < this.perCompany);
      if (at < 0) break;
      const [company] = this.turns.splice(at, 1) as [string];
      const line = this.lines.get(company)!;
      const waiter = line.waiting.shift()!;
      this.waitingCount--;
      // Served: to the back of the turns, behind every other company waiting.
      if (line.waiting.length > 0) this.turns.push(company);
      line.running++;
      this.running++;
      this.metrics?.wait.observe((performance.now() - waiter.since) / 1000);
      waiter.grant(this.releaseFor(company, line));
    }
    this.updateGauges();
  }

  private releaseFor(company: string, line: CompanyLine): SlotRelease {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      line.running--;
      this.running--;
      this.forgetIfIdle(company, line);
      this.dispatch();
    };
  }

  private lineOf(company: string): CompanyLine {
    let line = this.lines.get(company);
    if (line === undefined) {
      line = { running: 0, waiting: [] };
      this.lines.set(company, line);
    }
    return line;
  }

  private forgetIfIdle(company: string, line: CompanyLine): void {
    if (line.running === 0 && line.waiting.length === 0) this.lines.delete(company);
  }

  private dropTurn(company: string): void {
    const at = this.turns.indexOf(company);
    if (at >= 0) this.turns.splice(at, 1);
  }

  private updateGauges(): void {
    this.metrics?.running.set(this.running);
    this.metrics?.waiting.set(this.waitingCount);
  }
}

function slotMetrics(lane: CallLane, registry: Registry): SlotMetrics {
  const { name } = lane;
  const Name = name.charAt(0).toUpperCase() + name.slice(1);
  return {
    running: new Gauge({
      name: `clearml_${name}_calls_running`,
      help: `${Name} calls running now (${lane.limitSetting} bounds them, a quarter per company)`,
      registers: [registry],
    }),
    waiting: new Gauge({
      name: `clearml_${name}_calls_waiting`,
      help: `${Name} calls waiting for a slot now (${lane.waitingSetting} bounds them, a quarter per company)`,
      registers: [registry],
    }),
    refused: new Counter({
      name: `clearml_${name}_calls_refused_total`,
      help: `${Name} calls refused because their company's waiting line was full (429 ${lane.refusal})`,
      registers: [registry],
    }),
    wait: new Histogram({
      name: `clearml_${name}_call_wait_seconds`,
      help: `Time a ${name} call waited for a slot`,
      buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10],
      registers: [registry],
    }),
  };
}
