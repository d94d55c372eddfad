/**
 * `npm run bench:ingest`: events per second end to end (acknowledged and
 * stored) for HTTP NDJSON and for gRPC streaming, beside raw line-protocol
 * writes of the same points straight to InfluxDB measured in the same run;
 * ack latency and visibility lag (ack → readable). Last line:
 * `ingest ratio_http=<x> ratio_grpc=<y> ack_p99_ms=<z> lag_p99_ms=<w>`.
 *
 * Size with BENCH_EVENTS (default 1,000,000 per phase) and BENCH_BATCH
 * (events per request or chunk, default 10,000). BENCH_SHAPE=split (default)
 * runs the ingest and writer targets as two processes, as deployed;
 * BENCH_SHAPE=all runs the single `all` process of `npm start`.
 */
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { openBenchEnvironment, percentile, progress, round, type BenchService } from './bench-environment.js';
import { basicAuthorization, eventFields, grpcChunks, ndjsonBodies, postBatches, streamChunks, waitUntilStored } from './scalar-load.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const CONCURRENCY = 4;

interface PhaseResult {
  eventsPerSecond: number;
  ackMs: number[];
  lagMs: number[];
}

async function rawInfluxBaseline(influxUrl: string): Promise<number> {
  const store = new InfluxStore({ url: influxUrl, database: 'bench_raw' });
  await store.ensureDatabase();
  const bodies: string[] = [];
  for (let start = 0; start < EVENTS; start += BATCH) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(EVENTS, start + BATCH); i++) {
      const e = eventFields('raw', i);
      lines.push(`scalar,c=bench,e=${e.task},m=${e.metric},n=t,v=${e.variant} y=${e.value},ts=${1718000000000 + i}i,at=1718000000000i,w="bench",q=${i}i ${e.iter}`);
    }
    bodies.push(lines.join('\n'));
  }
  progress(`raw InfluxDB baseline: ${EVENTS} points in ${bodies.length} batches, 2 writers`);
  const started = performance.now();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < bodies.length) await store.write(bodies[next++]!);
    }),
  );
  return EVENTS / ((performance.now() - started) / 1000);
}

/** Polls markers (one unique task per request) until visible, recording ack → visible lag. */
class LagProbe {
  private readonly pending = new Map<string, number>();
  readonly lags: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly influx: InfluxStore) {
    this.loop = this.run();
  }

  acked(marker: string): void {
    this.pending.set(marker, performance.now());
  }

  private async run(): Promise<void> {
    while (this.running || this.pending.size > 0) {
      if (this.pending.size > 0) {
        const markers = [...this.pending.keys()];
        const where = markers.map((m) => `"e"='${m}'`).join(' OR ');
        const results = await this.influx.query(`SELECT LAST("y") FROM "scalar" WHERE ${where} GROUP BY "e"`);
        const now = performance.now();
        for (const series of results[0]?.series ?? []) {
          const marker = series.tags?.e;
          const ackedAt = marker === undefined ? undefined : this.pending.get(marker);
          if (ackedAt !== undefined) {
            this.lags.push(now - ackedAt);
            this.pending.delete(marker!);
          }
        }
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

const storedBy = (service: BenchService) => waitUntilStored(service.env.NATS_URL!, service.env.NATS_STREAM_PREFIX ?? 'clearml');

async function httpPhase(service: BenchService, influx: InfluxStore): Promise<PhaseResult> {
  const bodies = ndjsonBodies('http', EVENTS, BATCH);
  progress(`HTTP NDJSON: ${EVENTS} events in ${bodies.length} requests, ${CONCURRENCY} in flight`);
  const probe = new LagProbe(influx);
  const ackMs: number[] = [];
  const started = performance.now();
  await postBatches(service.baseUrl, basicAuthorization(service.credential), bodies, CONCURRENCY, (marker, ms) => {
    ackMs.push(ms);
    probe.acked(marker);
  });
  await storedBy(service);
  const elapsed = (performance.now() - started) / 1000;
  await probe.close();
  return { eventsPerSecond: EVENTS / elapsed, ackMs, lagMs: probe.lags };
}

async function grpcPhase(service: BenchService, influx: InfluxStore): Promise<PhaseResult> {
  const chunks = grpcChunks('grpc', EVENTS, BATCH);
  progress(`gRPC StreamEvents: ${EVENTS} events in ${chunks.length} chunks`);
  const probe = new LagProbe(influx);
  const ackMs: number[] = [];
  const started = performance.now();
  await streamChunks(`127.0.0.1:${service.grpcPort}`, basicAuthorization(service.credential), chunks, (marker, ms) => {
    ackMs.push(ms);
    probe.acked(marker);
  });
  await storedBy(service);
  const elapsed = (performance.now() - started) / 1000;
  await probe.close();
  return { eventsPerSecond: EVENTS / elapsed, ackMs, lagMs: probe.lags };
}

async function main(): Promise<void> {
  const environment = await openBenchEnvironment();
  try {
    const raw = await rawInfluxBaseline(environment.stack.influxUrl);
    progress(`raw InfluxDB writes: ${Math.round(raw)} points/s`);
    const shape = process.env.BENCH_SHAPE ?? 'split';
    const service = await environment.startService(shape === 'all' ? 'all' : 'ingest');
    if (shape !== 'all') await environment.startService('writer');
    progress(`service shape: ${shape === 'all' ? 'one all process' : 'an ingest process and a writer process'}`);
    const influx = new InfluxStore({ url: environment.stack.influxUrl, database: 'clearml' });
    const viaHttp = await httpPhase(service, influx);
    progress(`HTTP end to end: ${Math.round(viaHttp.eventsPerSecond)} events/s, ack p50 ${round(percentile(viaHttp.ackMs, 50))} ms p99 ${round(percentile(viaHttp.ackMs, 99))} ms, lag p99 ${round(percentile(viaHttp.lagMs, 99))} ms`);
    const viaGrpc = await grpcPhase(service, influx);
    progress(`gRPC end to end: ${Math.round(viaGrpc.eventsPerSecond)} events/s, ack p50 ${round(percentile(viaGrpc.ackMs, 50))} ms p99 ${round(percentile(viaGrpc.ackMs, 99))} ms, lag p99 ${round(percentile(viaGrpc.lagMs, 99))} ms`);
    const ackP99 = percentile([...viaHttp.ackMs, ...viaGrpc.ackMs], 99);
    const lagP99 = percentile([...viaHttp.lagMs, ...viaGrpc.lagMs], 99);
    process.stdout.write(
      `ingest ratio_http=${round(viaHttp.eventsPerSecond / raw, 3)} ratio_grpc=${round(viaGrpc.eventsPerSecond / raw, 3)} ack_p99_ms=${round(ackP99, 1)} lag_p99_ms=${round(lagP99, 1)}\n`,
    );
  } finally {
    await environment.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
