/**
 * The bounded load of one scenario: per company, HTTP NDJSON clients, gRPC
 * AddBatch clients and gRPC StreamEvents clients, each on its own fresh
 * task, sending until told to stop and then finishing what they hold (a
 * request or chunk not answered 200 by the deadline is abandoned); and
 * read clients, each reading one of those tasks the while.
 */
import { AckLedger } from './ack-ledger.js';
import type { FaultDeployment } from './fault-deployment.js';
import { runGrpcAddBatchClient, runGrpcStreamClient } from './grpc-load-clients.js';
import { runHttpClient } from './http-load-client.js';
import type { LoadClientOptions } from './load-client.js';
import { runReadClient } from './read-load-client.js';
import type { RetryPolicy } from './sdk-retry.js';

export interface LoadShape {
  /** Clients of each kind per company. */
  http: number;
  grpcAddBatch: number;
  grpcStream: number;
  /** Read clients per company (each on one of its company's ingest tasks, in turn). */
  reads: number;
  batchEvents: number;
  intervalMs: number;
}

/** 8 clients of 40 events every ~200 ms: about 1,500 events/s, a fifth of what this machine ingests. */
export const FULL_LOAD: LoadShape = {
  http: 2,
  grpcAddBatch: 1,
  grpcStream: 1,
  reads: 0,
  batchEvents: 40,
  intervalMs: 200,
};

/** The same through nginx, and two read clients per company: reads must survive a query process's loss too. */
export const CLUSTER_LOAD: LoadShape = { ...FULL_LOAD, reads: 2 };

/** Pause between a read's 200 and the next read. */
const READ_INTERVAL_MS = 100;

type ClientKind = 'http' | 'grpcAddBatch' | 'grpcStream';
const RUNNERS: Record<ClientKind, (deployment: FaultDeployment, options: LoadClientOptions) => Promise<void>> = {
  http: (d, o) => runHttpClient(d.ingestUrl, o),
  grpcAddBatch: (d, o) => runGrpcAddBatchClient(d.grpcAddress, o),
  grpcStream: (d, o) => runGrpcStreamClient(d.grpcAddress, o),
};
const TAG: Record<ClientKind, string> = { http: 'http', grpcAddBatch: 'grpcbatch', grpcStream: 'grpcstream' };

export class FaultLoad {
  readonly ledger = new AckLedger();
  private producing = true;
  private giveUpAt = Infinity;
  private running?: Promise<void>;

  constructor(
    private readonly deployment: FaultDeployment,
    /** Bearer tokens, one per company. */
    private readonly tokens: readonly string[],
    /** Prefix of this scenario's task ids (fresh per scenario). */
    private readonly taskPrefix: string,
    private readonly shape: LoadShape,
    private readonly policy: RetryPolicy,
  ) {}

  start(): void {
    const clients: Promise<void>[] = [];
    this.tokens.forEach((token, company) => {
      const tasks: string[] = [];
      for (const kind of Object.keys(RUNNERS) as ClientKind[]) {
        for (let i = 0; i < this.shape[kind]; i++) {
          const task = `${this.taskPrefix}-${'ab'[company]}-${TAG[kind]}${i}`;
          this.ledger.addTask(task, company);
          tasks.push(task);
          const options: LoadClientOptions = {
            name: `${TAG[kind]} client of ${task}`,
            task,
            token,
            ledger: this.ledger,
            policy: this.policy,
            batchEvents: this.shape.batchEvents,
            intervalMs: this.shape.intervalMs,
            producing: () => this.producing,
            giveUpAt: () => this.giveUpAt,
          };
          clients.push(RUNNERS[kind](this.deployment, options));
        }
      }
      for (let i = 0; i < this.shape.reads; i++) {
        const task = tasks[i % tasks.length]!;
        clients.push(
          runReadClient(this.deployment.queryUrl, {
            name: `read client ${i} of ${task}`,
            task,
            token,
            ledger: this.ledger,
            policy: this.policy,
            intervalMs: READ_INTERVAL_MS,
            producing: () => this.producing,
            giveUpAt: () => this.giveUpAt,
          }),
        );
      }
    });
    this.running = Promise.all(clients).then(() => undefined);
  }

  /** Stops new requests; what clients hold must get its 200 within finishWithinMs. Resolves when every client is done. */
  async finish(finishWithinMs: number): Promise<void> {
    this.producing = false;
    this.giveUpAt = Date.now() + finishWithinMs;
    await this.running;
    this.ledger.closeOpenRuns();
    this.ledger.reads.closeOpenRuns();
  }

  /** Every client has had at least one request acknowledged. */
  get everyClientAcked(): boolean {
    return [...this.ledger.acked.values()].every((keys) => keys.size > 0);
  }
}
