/**
 * What the fault bench needs of a deployment, whatever its shape (the
 * single-machine split deployment of local-fault-deployment.ts, the cluster
 * of cluster-fault-deployment.ts): where clients send and read, the events
 * stream to watch drain, two companies' key pairs, the pids of its
 * processes, and a way to have every process up before a scenario. A
 * scenario is a fault its deployment knows how to inject.
 */
import { randomBytes } from 'node:crypto';

export interface BenchCredential {
  access_key: string;
  secret_key: string;
  company: string;
  user: string;
}

export interface FaultDeployment {
  readonly dataDir: string;
  /** Base URL of events.add_batch (HTTP NDJSON). */
  readonly ingestUrl: string;
  /** host:port of the gRPC ingest. */
  readonly grpcAddress: string;
  /** Base URL of auth.login and the reads. */
  readonly queryUrl: string;
  /** NATS_URL of the services (several seeds, comma-separated, on a cluster). */
  readonly natsUrl: string;
  readonly streamPrefix: string;
  readonly partitions: number;
  /** Two companies. */
  readonly credentials: readonly [BenchCredential, BenchCredential];
  /** The current pid of every process, by label (undefined while one is down). */
  processPids(): Record<string, number | undefined>;
  /** Resolves once every process is up and answering (one left down by the previous scenario is started again). */
  ensureUp(timeoutMs: number, log: (line: string) => void): Promise<void>;
  /** Stops every process started here, by pid; idempotent. Removes the data folder unless `keep`. */
  stop(options?: { keep?: boolean }): Promise<void>;
}

export interface InjectedFault {
  /** Epoch ms at which the fault ended. */
  endedAt: number;
  /** Settles when the component is back (restarted and answering, at full strength); rejects if it did not come back. */
  back: Promise<void>;
  /** Labels of the processes the fault broke: their pids are expected to change. */
  targets: string[];
  /** What the bench saw on the way (which node it chose, when a replica took over), for the report's notes. */
  notes?: string[];
}

export interface FaultTiming {
  /** SIGSTOP and stop faults last this long. */
  pauseMs: number;
  /** How long a broken process has to come back. */
  restartTimeoutMs: number;
}

export interface Scenario<D extends FaultDeployment = FaultDeployment> {
  name: string;
  inject(deployment: D, timing: FaultTiming): Promise<InjectedFault>;
}

/** Stream prefix, Redis key prefix and InfluxDB database of the bench's deployments. */
export const BENCH_PREFIX = 'faults';
export const BENCH_PARTITIONS = 8;

export function benchCredential(company: string): BenchCredential {
  return {
    access_key: `FAULTS${randomBytes(6).toString('hex').toUpperCase()}`,
    secret_key: randomBytes(18).toString('base64url'),
    company,
    user: `${company}-user`,
  };
}
