/**
 * What `npm run faults -- --cluster` breaks: the cluster shape started by
 * the code of `npm run start:cluster` (deploy/cluster-stack), in a
 * temporary folder on free ports: 3 nats-servers (streams with 3 replicas),
 * a Redis Cluster of 3 masters with a replica each, InfluxDB, 2 ingest,
 * 2 writer and 2 query processes, and nginx, through which every client
 * call goes (HTTP and gRPC). Every process runs under the stack's
 * supervisor with restartOnExit, as `npm run start:cluster` runs it: the
 * bench kills, the supervisor restarts. The bench's own NATS connection
 * watches the events stream's replicas. Everything is stopped by pid.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from 'nats';
import { startClusterStack, type ClusterStack } from '../../deploy/cluster-stack/cluster-stack.js';
import { answersReady } from '../../deploy/cluster-stack/service-target.js';
import { waitUntilReady } from '../../deploy/local-stack/wait-ready.js';
import { urlList } from '../../shared/config/url-list.js';
import { jetStreamShortfall, redisShortfall, waitFullStrength } from './cluster-health.js';
import { benchCredential, BENCH_PARTITIONS, BENCH_PREFIX, type FaultDeployment } from './fault-deployment.js';

export interface ClusterFaultDeployment extends FaultDeployment {
  readonly stack: ClusterStack;
  /** The bench's own connection to the NATS cluster (reconnects to any node). */
  readonly nats: NatsConnection;
  /** Waits until the service process `label` (ingest-1, ...) answers /ready. */
  waitServiceReady(label: string, timeoutMs: number): Promise<void>;
  /** Waits until the Redis Cluster is at full strength (cluster-health.ts). */
  waitRedisFullStrength(timeoutMs: number): Promise<void>;
  /** Waits until the events stream and its consumers have all their replicas current. */
  waitJetStreamFullStrength(timeoutMs: number): Promise<void>;
}

const NATS_REPLICAS = 3;
const REDIS_MASTERS = 3;

export async function openClusterFaultDeployment(options: {
  log: (line: string) => void;
  dataDir?: string;
  maxHeapMb?: number;
}): Promise<ClusterFaultDeployment> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'clearml-faults-cluster-'));
  const credentials = [benchCredential('company-a'), benchCredential('company-b')] as const;
  const credentialsFile = path.join(dataDir, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify(credentials));
  let stack: ClusterStack | undefined;
  let nats: NatsConnection | undefined;
  let stopped: Promise<void> | undefined;
  const stop = (keep = false) => {
    stopped ??= (async () => {
      await nats?.close().catch(() => undefined);
      await stack?.stop();
      if (!keep) rmSync(dataDir, { recursive: true, force: true });
    })();
    return stopped;
  };
  try {
    stack = await startClusterStack({
      dataDir: path.join(dataDir, 'cluster'),
      serviceEnv: {
        CREDENTIALS_FILE: credentialsFile,
        // One secret for every process: a token from one query process's auth.login works everywhere.
        AUTH_SECRET: randomBytes(36).toString('base64url'),
        DATA_DIR: dataDir,
        NATS_STREAM_PREFIX: BENCH_PREFIX,
        NATS_PARTITIONS: String(BENCH_PARTITIONS),
        REDIS_KEY_PREFIX: BENCH_PREFIX,
        INFLUX_DB: BENCH_PREFIX,
        LOG_LEVEL: 'warn',
      },
      maxHeapMb: options.maxHeapMb,
      restartOnExit: true,
      log: (line) => options.log(`[cluster] ${line}`),
    });
    const started = stack;
    // Reconnects forever: the bench's connection outlives the loss of any node.
    nats = await connect({
      servers: urlList(started.natsUrl),
      name: 'fault-bench',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    const connection = nats;
    const waitServiceReady = async (label: string, timeoutMs: number) => {
      const outcome = await waitUntilReady({ url: started.serviceUrls[label]!, probe: answersReady, timeoutMs });
      if (outcome.kind !== 'ready')
        throw new Error(
          `${label} not ready within ${timeoutMs} ms: ${outcome.kind === 'timeout' ? outcome.lastError : 'exited'}`,
        );
    };
    const waitRedisFullStrength = (timeoutMs: number) =>
      waitFullStrength('the Redis Cluster', () => redisShortfall(started, REDIS_MASTERS), timeoutMs);
    const waitJetStreamFullStrength = (timeoutMs: number) =>
      waitFullStrength(
        'the events stream',
        () => jetStreamShortfall(connection, BENCH_PREFIX, BENCH_PARTITIONS, NATS_REPLICAS),
        timeoutMs,
      );
    return {
      dataDir,
      stack: started,
      nats: connection,
      ingestUrl: started.baseUrl,
      grpcAddress: started.grpcAddress,
      queryUrl: started.baseUrl,
      natsUrl: started.natsUrl,
      streamPrefix: BENCH_PREFIX,
      partitions: BENCH_PARTITIONS,
      credentials,
      processPids: () => Object.fromEntries(started.labels().map((label) => [label, started.pidOf(label)])),
      async ensureUp(timeoutMs, log) {
        const deadline = Date.now() + timeoutMs;
        const left = () => Math.max(1_000, deadline - Date.now());
        for (;;) {
          const down = started.labels().filter((label) => started.pidOf(label) === undefined);
          if (down.length === 0) break;
          if (Date.now() > deadline)
            throw new Error(`not running (the supervisor did not restart them): ${down.join(', ')}`);
          log(`  waiting for the supervisor to restart ${down.join(', ')}`);
          await sleep(1_000);
        }
        for (const label of Object.keys(started.serviceUrls)) await waitServiceReady(label, left());
        await waitRedisFullStrength(left());
        await waitJetStreamFullStrength(left());
      },
      waitServiceReady,
      waitRedisFullStrength,
      waitJetStreamFullStrength,
      stop: (stopOptions) => stop(stopOptions?.keep),
    };
  } catch (error) {
    await stop(true);
    throw error;
  }
}
