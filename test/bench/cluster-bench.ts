/**
 * `npm run bench:cluster`: what each tier of the split deployment on
 * clustered stores costs per event, for sizing (docs/scaling.md). Starts the
 * cluster of `npm run start:cluster` (3 NATS nodes with R3 streams, Redis
 * Cluster 3+3, InfluxDB, 2 ingest, 2 writer, 2 query, nginx) in a temporary
 * folder, sends the SDK-shaped scalar load of bench:ingest through nginx
 * over HTTP NDJSON and then over gRPC, and reads every process's CPU time
 * from /proc before and after each phase (a phase ends when every event
 * acknowledged is stored). Prints CPU µs per event per process and per tier;
 * last line `cluster events_per_s_http=<a> events_per_s_grpc=<b>
 * cpu_us_http=<x> cpu_us_grpc=<y>` (the cpu figures: every server process,
 * the load client excluded).
 *
 * BENCH_EVENTS (default 500,000 per phase), BENCH_BATCH (default 10,000).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startClusterStack, type ClusterStack } from '../../deploy/cluster-stack/cluster-stack.js';
import { progress } from './bench-environment.js';
import { CpuMeter, cpuPerEvent, cpuTable, ownCpuSeconds, type CpuPhase } from './process-cpu.js';
import {
  basicAuthorization,
  grpcChunks,
  ndjsonBodies,
  postBatches,
  streamChunks,
  waitUntilStored,
} from './scalar-load.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 500_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const CONCURRENCY = 4;
const STREAM_PREFIX = 'bench';

interface PhaseFigures extends CpuPhase {
  eventsPerSecond: number;
}

async function phase(
  stack: ClusterStack,
  name: string,
  events: number,
  send: () => Promise<void>,
): Promise<PhaseFigures> {
  const meter = new CpuMeter((label) => stack.pidOf(label), stack.labels());
  const clientBefore = ownCpuSeconds();
  meter.start();
  const started = performance.now();
  await send();
  await waitUntilStored(stack.natsUrl, STREAM_PREFIX);
  const elapsed = (performance.now() - started) / 1000;
  const { samples, restarted } = meter.stop();
  if (restarted.length > 0) throw new Error(`processes restarted during the ${name} phase: ${restarted.join(', ')}`);
  const figures = {
    name,
    events,
    eventsPerSecond: events / elapsed,
    samples,
    clientSeconds: ownCpuSeconds() - clientBefore,
  };
  progress(`${name}: ${Math.round(figures.eventsPerSecond)} events/s through nginx`);
  return figures;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-bench-cluster-'));
  const credential = {
    access_key: 'BENCHKEY',
    secret_key: 'bench-secret-cluster',
    company: 'bench',
    user: 'bench-user',
  };
  const credentialsFile = path.join(dataDir, 'credentials.json');
  writeFileSync(credentialsFile, JSON.stringify([credential]));
  progress(`starting the cluster in ${dataDir}`);
  const stack = await startClusterStack({
    dataDir,
    serviceEnv: {
      DATA_DIR: dataDir,
      CREDENTIALS_FILE: credentialsFile,
      LOG_LEVEL: 'warn',
      NATS_STREAM_PREFIX: STREAM_PREFIX,
    },
    log: (line) => progress(`[cluster] ${line}`),
  });
  try {
    const authorization = basicAuthorization(credential);
    const bodies = ndjsonBodies('http', EVENTS, BATCH);
    progress(`HTTP NDJSON through nginx: ${EVENTS} events in ${bodies.length} requests, ${CONCURRENCY} in flight`);
    // Every body and chunk carries one more event, its marker task's.
    const viaHttp = await phase(stack, 'HTTP', EVENTS + bodies.length, () =>
      postBatches(stack.baseUrl, authorization, bodies, CONCURRENCY, () => {}),
    );
    const chunks = grpcChunks('grpc', EVENTS, BATCH);
    progress(`gRPC StreamEvents through nginx: ${EVENTS} events in ${chunks.length} chunks`);
    const viaGrpc = await phase(stack, 'gRPC', EVENTS + chunks.length, () =>
      streamChunks(stack.grpcAddress, authorization, chunks, () => {}),
    );
    process.stdout.write(`${cpuTable([viaHttp, viaGrpc])}\n`);
    process.stdout.write(
      `cluster events_per_s_http=${Math.round(viaHttp.eventsPerSecond)} events_per_s_grpc=${Math.round(viaGrpc.eventsPerSecond)} cpu_us_http=${cpuPerEvent(viaHttp)} cpu_us_grpc=${cpuPerEvent(viaGrpc)}\n`,
    );
  } finally {
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
