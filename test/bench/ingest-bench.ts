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
import { credentials, makeClientConstructor, Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import http from 'node:http';
import { create, toBinary } from '@bufbuild/protobuf';
import { connect } from 'nats';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import { EventChunkSchema, type ChunkAck } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { streamName } from '../../shared/events/wire-format.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { openBenchEnvironment, percentile, progress, round, type BenchService } from './bench-environment.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const CONCURRENCY = 4;
const SERIES_PER_TASK = 10;
const TASKS = 20;

interface PhaseResult {
  eventsPerSecond: number;
  ackMs: number[];
  lagMs: number[];
}

/** The i-th event of a phase: scalars spread over tasks and series, iterations increasing. */
function eventFields(phase: string, i: number) {
  const task = `${phase}-t${i % TASKS}`;
  const series = Math.floor(i / TASKS) % SERIES_PER_TASK;
  const iter = Math.floor(i / (TASKS * SERIES_PER_TASK));
  return { task, metric: `metric${series % 3}`, variant: `variant${series}`, iter, value: (i % 1000) / 7 };
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

async function waitUntilStored(service: BenchService): Promise<void> {
  const nc = await connect({ servers: service.env.NATS_URL });
  const jsm = await nc.jetstreamManager();
  const prefix = service.env.NATS_STREAM_PREFIX ?? 'clearml';
  try {
    for (;;) {
      const consumers = await jsm.consumers.list(streamName(prefix)).next();
      const busy = consumers.some((c) => c.num_pending > 0 || c.num_ack_pending > 0);
      if (!busy && consumers.length > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await nc.close();
  }
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

function ndjsonBody(phase: string, start: number, count: number, marker: string): Buffer {
  const lines: string[] = [];
  for (let i = start; i < start + count; i++) {
    const e = eventFields(phase, i);
    lines.push(
      `{"timestamp": ${1718000000000 + i}, "type": "training_stats_scalar", "task": "${e.task}", "iter": ${e.iter}, "metric": "${e.metric}", "variant": "${e.variant}", "value": ${e.value}, "model_event": false, "allow_locked": false}`,
    );
  }
  lines.push(`{"type": "training_stats_scalar", "task": "${marker}", "iter": 0, "metric": "m", "variant": "v", "value": 1}`);
  return Buffer.from(lines.join('\n'));
}

/** The Authorization header value: Basic works on every endpoint, and the ingest target has no auth.login. */
function authorization(service: BenchService): string {
  const { access_key, secret_key } = service.credential;
  return `Basic ${Buffer.from(`${access_key}:${secret_key}`).toString('base64')}`;
}

async function httpPhase(service: BenchService, influx: InfluxStore): Promise<PhaseResult> {
  const auth = authorization(service);
  const bodies: Array<{ body: Buffer; marker: string }> = [];
  for (let start = 0, n = 0; start < EVENTS; start += BATCH, n++) bodies.push({ body: ndjsonBody('http', start, Math.min(BATCH, EVENTS - start), `http-mk${n}`), marker: `http-mk${n}` });
  progress(`HTTP NDJSON: ${EVENTS} events in ${bodies.length} requests, ${CONCURRENCY} in flight`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL(`${service.baseUrl}/v2.23/events.add_batch`);
  const probe = new LagProbe(influx);
  const ackMs: number[] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const { body, marker } = bodies[next++]!;
        const sent = performance.now();
        const status = await new Promise<number>((resolve, reject) => {
          const request = http.request(url, { method: 'POST', agent, headers: { authorization: auth, 'content-type': 'application/json-lines', 'content-length': body.length } }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          });
          request.on('error', reject);
          request.end(body);
        });
        if (status !== 200) throw new Error(`add_batch answered ${status}`);
        ackMs.push(performance.now() - sent);
        probe.acked(marker);
      }
    }),
  );
  await waitUntilStored(service);
  const elapsed = (performance.now() - started) / 1000;
  await probe.close();
  agent.destroy();
  return { eventsPerSecond: EVENTS / elapsed, ackMs, lagMs: probe.lags };
}

async function grpcPhase(service: BenchService, influx: InfluxStore): Promise<PhaseResult> {
  // Chunks are encoded before the clock starts (training clients encode on their own machines): send bytes as they are.
  const definition = { StreamEvents: { ...eventsIngestDefinition.StreamEvents, requestSerialize: (bytes: Uint8Array) => Buffer.from(bytes) } };
  const Client = makeClientConstructor(definition as never, 'clearml.events.v1.EventsIngest');
  const client = new Client(`127.0.0.1:${service.grpcPort}`, credentials.createInsecure(), {
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  });
  const chunks: Array<{ bytes: Uint8Array; marker: string }> = [];
  for (let start = 0, n = 0; start < EVENTS; start += BATCH, n++) {
    const events = [];
    for (let i = start; i < Math.min(EVENTS, start + BATCH); i++) {
      const e = eventFields('grpc', i);
      events.push({ type: 'training_stats_scalar', task: e.task, iter: BigInt(e.iter), metric: e.metric, variant: e.variant, value: e.value, timestampMs: 1718000000000 + i });
    }
    const marker = `grpc-mk${n}`;
    events.push({ type: 'training_stats_scalar', task: marker, iter: 0n, metric: 'm', variant: 'v', value: 1 });
    chunks.push({ bytes: toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: BigInt(n), events: events as never })), marker });
  }
  progress(`gRPC StreamEvents: ${EVENTS} events in ${chunks.length} chunks`);
  const metadata = new Metadata();
  metadata.set('authorization', authorization(service));
  const probe = new LagProbe(influx);
  const ackMs: number[] = [];
  const sentAt = new Map<bigint, number>();
  const started = performance.now();
  const stream = (client as unknown as { StreamEvents(md: Metadata): ClientDuplexStream<unknown, ChunkAck> }).StreamEvents(metadata);
  const done = new Promise<void>((resolve, reject) => {
    let acked = 0;
    stream.on('data', (ack: ChunkAck) => {
      if (ack.error) reject(new Error(`chunk refused: ${ack.error.message}`));
      ackMs.push(performance.now() - sentAt.get(ack.chunkId)!);
      probe.acked(chunks[Number(ack.chunkId)]!.marker);
      if (++acked === chunks.length) resolve();
    });
    stream.on('error', reject);
  });
  for (let n = 0; n < chunks.length; n++) {
    sentAt.set(BigInt(n), performance.now());
    if (!stream.write(chunks[n]!.bytes)) await new Promise((r) => stream.once('drain', r));
  }
  await done;
  stream.end();
  await waitUntilStored(service);
  const elapsed = (performance.now() - started) / 1000;
  await probe.close();
  client.close();
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
