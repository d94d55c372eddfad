/**
 * The metrics of every stage move when their events happen, on a real `all`
 * process over the suite's stack (issue 15, item 1); hostile input creates
 * no new series; the Grafana dashboard and the alert rules name only
 * metrics the service exports.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { create } from '@bufbuild/protobuf';
import {
  credentials,
  makeClientConstructor,
  makeGenericClientConstructor,
  Metadata,
  type ServiceError,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import {
  EventChunkSchema,
  EventSchema,
  type ChunkAck,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { buildInfo } from '../../shared/observability/build-info.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { httpRequest } from '../harness/http-request.js';
import { hasSample, parsePrometheusText, sampleSum, seriesNames, type Scrape } from '../harness/prometheus-text.js';
import { promqlMetricNames } from '../harness/promql-names.js';
import { eventually } from '../harness/eventually.js';
import { ndjson, scalar } from '../harness/event-builders.js';

const STREAM_MAX_BYTES = 1024 * 1024 * 1024;
const PARTITIONS = 4;

let h: Harness;
let token: string;
let grpc: GrpcClient;

type Stream = { write(m: unknown): void; end(): void; on(e: string, f: (...a: any[]) => void): void };
type GrpcClient = {
  Add(event: unknown, md: Metadata, cb: (e: ServiceError | null, r: { added: number }) => void): void;
  StreamEvents(md: Metadata): Stream;
  close(): void;
};

beforeAll(async () => {
  h = await startHarness({
    env: { NATS_STREAM_MAX_BYTES: String(STREAM_MAX_BYTES), NATS_PARTITIONS: String(PARTITIONS) },
  });
  token = await h.login(h.credentials.a);
  const Ctor = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
  grpc = new Ctor(
    `127.0.0.1:${h.service.services.boundPorts.get('grpc')}`,
    credentials.createInsecure(),
  ) as unknown as GrpcClient;
});
afterAll(async () => {
  grpc?.close();
  await h?.stop();
});

async function scrape(): Promise<Scrape> {
  const response = await httpRequest(`${h.baseUrl}/metrics`);
  expect(response.status).toBe(200);
  return parsePrometheusText(response.text);
}

/** Scrapes until `ready` holds (samplers run every few seconds). */
async function scrapeUntil(ready: (s: Scrape) => boolean, what: string, timeoutMs = 20_000): Promise<Scrape> {
  return eventually(scrape, ready, { what, timeoutMs, everyMs: 250 });
}

function addBatch(body: string, headers: Record<string, string> = {}) {
  return h.call('events.add_batch', undefined, {
    token,
    rawBody: body,
    headers: { 'content-type': 'application/json-lines', ...headers },
  });
}

function metadata(extra: Record<string, string> = {}, bearer = token): Metadata {
  const md = new Metadata();
  md.set('authorization', `Bearer ${bearer}`);
  for (const [k, v] of Object.entries(extra)) md.set(k, v);
  return md;
}

function grpcAdd(event: unknown, md = metadata()): Promise<ServiceError | { added: number }> {
  return new Promise((resolve) => grpc.Add(event, md, (error, result) => resolve(error ?? result)));
}

function stream(chunks: Array<{ id: bigint; events: unknown[] }>, md = metadata()): Promise<ChunkAck[]> {
  return new Promise((resolve, reject) => {
    const call = grpc.StreamEvents(md);
    const acks: ChunkAck[] = [];
    call.on('data', (ack: ChunkAck) => acks.push(ack));
    call.on('error', reject);
    call.on('end', () => resolve(acks));
    for (const chunk of chunks)
      call.write(create(EventChunkSchema, { chunkId: chunk.id, events: chunk.events as never }));
    call.end();
  });
}

const protoScalar = (task: string, iter: number) =>
  create(EventSchema, { type: 'training_stats_scalar', task, iter: BigInt(iter), metric: 'm', variant: 'v', value: 1 });

describe('build info', () => {
  it('names the version, the Node.js version and the target', async () => {
    const s = await scrape();
    const version = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
    expect(version).toBe(buildInfo.version);
    expect(sampleSum(s, 'clearml_build_info', { version, node_version: process.version, target: 'all' })).toBe(1);
  });
});

describe('ingest', () => {
  it('counts accepted events, refused ones by their catalogue reason, bytes, publishes and acks', async () => {
    const task = unique('metrics-');
    const before = await scrape();
    const body = ndjson([
      scalar(task, 'loss', 'v', 1, 1),
      scalar(task, 'loss', 'v', 2, 2),
      { type: 'no_such_type', task },
      { type: 'log', msg: 'x' },
      { ...scalar('bad id!', 'loss', 'v', 1, 1) },
    ]);
    const answer = await addBatch(body);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ added: 2, errors: 3 });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(delta('clearml_ingest_events_accepted_total')).toBe(2);
    expect(delta('clearml_ingest_events_refused_total', { reason: 'invalid_fields' })).toBe(1);
    expect(delta('clearml_ingest_events_refused_total', { reason: 'missing_required_fields' })).toBe(1);
    expect(delta('clearml_ingest_events_refused_total', { reason: 'invalid_task_id' })).toBe(1);
    expect(delta('clearml_ingest_received_bytes_total', { transport: 'http' })).toBe(Buffer.byteLength(body));
    expect(delta('clearml_ingest_publish_duration_seconds_count')).toBe(1);
    expect(delta('clearml_ingest_jetstream_messages_total', { result: 'acked' })).toBeGreaterThanOrEqual(1);
    expect(delta('clearml_api_requests_total', { endpoint: 'events.add_batch', code: '200' })).toBe(1);
  });

  it("a refused request counts its events under the request's reason", async () => {
    const task = unique('metrics-');
    const before = await scrape();
    const answer = await addBatch(
      `${ndjson([scalar(task, 'loss', 'v', 1, 1), scalar(task, 'loss', 'v', 2, 2)])}\n{not json`,
    );
    expect(answer.status).toBe(400);
    const after = await scrape();
    expect(
      sampleSum(after, 'clearml_ingest_events_refused_total', { reason: 'malformed_body' }) -
        sampleSum(before, 'clearml_ingest_events_refused_total', { reason: 'malformed_body' }),
    ).toBe(2);
    expect(sampleSum(after, 'clearml_ingest_events_accepted_total')).toBe(
      sampleSum(before, 'clearml_ingest_events_accepted_total'),
    );
  });

  it('a re-sent request is counted as duplicate JetStream messages', async () => {
    const body = ndjson([scalar(unique('metrics-dup-'), 'loss', 'v', 1, 1)]);
    expect((await addBatch(body)).status).toBe(200);
    const before = await scrape();
    expect((await addBatch(body)).status).toBe(200);
    const after = await scrape();
    expect(
      sampleSum(after, 'clearml_ingest_jetstream_messages_total', { result: 'duplicate' }) -
        sampleSum(before, 'clearml_ingest_jetstream_messages_total', { result: 'duplicate' }),
    ).toBe(1);
  });

  it('exports the in-flight budget and its limit', async () => {
    const s = await scrape();
    expect(sampleSum(s, 'clearml_ingest_inflight_limit_bytes')).toBe(h.config.INGEST_MAX_INFLIGHT_BYTES);
    expect(sampleSum(s, 'clearml_ingest_inflight_bytes')).toBe(0);
  });

  it('exports the events stream fill against its limit', async () => {
    const s = await scrape();
    expect(sampleSum(s, 'clearml_jetstream_stream_max_bytes', { stream: 'events' })).toBe(STREAM_MAX_BYTES);
    expect(hasSample(s, 'clearml_jetstream_stream_bytes', { stream: 'events' })).toBe(true);
    expect(hasSample(s, 'clearml_jetstream_stream_messages', { stream: 'dead' })).toBe(true);
    expect(hasSample(s, 'clearml_jetstream_account_storage_bytes')).toBe(true);
  });
});

describe('gRPC', () => {
  it('counts calls by method and status, chunk acks by status, and open streams', async () => {
    const task = unique('metrics-grpc-');
    const before = await scrape();
    expect(await grpcAdd(protoScalar(task, 1))).toMatchObject({ added: 1 });
    expect(await grpcAdd(protoScalar(task, 2), metadata({}, 'not-a-token'))).toMatchObject({ code: 16 });
    const acks = await stream([
      { id: 1n, events: [protoScalar(task, 3)] },
      { id: 2n, events: [create(EventSchema, { type: 'no_such_type', task })] },
    ]);
    expect(acks.map((a) => a.error?.code ?? 200)).toEqual([200, 400]);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(delta('clearml_grpc_calls_total', { method: 'Add', code: 'OK' })).toBe(1);
    expect(delta('clearml_grpc_calls_total', { method: 'Add', code: 'UNAUTHENTICATED' })).toBe(1);
    expect(delta('clearml_grpc_calls_total', { method: 'StreamEvents', code: 'OK' })).toBe(1);
    expect(delta('clearml_grpc_chunk_acks_total', { code: 'OK' })).toBe(1);
    expect(delta('clearml_grpc_chunk_acks_total', { code: 'INVALID_ARGUMENT' })).toBe(1);
    expect(delta('clearml_grpc_call_duration_seconds_count', { method: 'StreamEvents' })).toBe(1);
    expect(delta('clearml_ingest_received_bytes_total', { transport: 'grpc' })).toBeGreaterThan(0);
    expect(delta('clearml_ingest_events_accepted_total')).toBe(2);
    expect(sampleSum(after, 'clearml_grpc_streams_open')).toBe(0);
  });

  it('a stream open now is counted until it ends', async () => {
    const call = grpc.StreamEvents(metadata());
    const ended = new Promise((resolve) => {
      call.on('end', resolve);
      call.on('error', resolve);
      call.on('data', () => undefined);
    });
    await scrapeUntil((s) => sampleSum(s, 'clearml_grpc_streams_open') === 1, 'one stream open');
    call.end();
    await ended;
    await scrapeUntil((s) => sampleSum(s, 'clearml_grpc_streams_open') === 0, 'no stream open');
  });
});

describe('writer', () => {
  it('samples each owned partition: lag in seconds and an acknowledgement floor that moves as events are stored', async () => {
    const task = unique('metrics-writer-');
    const before = await scrapeUntil((s) => hasSample(s, 'clearml_writer_ack_floor_sequence'), 'writer samples');
    expect((await addBatch(ndjson([scalar(task, 'loss', 'v', 1, 1), scalar(task, 'loss', 'v', 2, 2)]))).status).toBe(
      200,
    );
    const after = await scrapeUntil(
      (s) =>
        sampleSum(s, 'clearml_writer_ack_floor_sequence') > sampleSum(before, 'clearml_writer_ack_floor_sequence') &&
        sampleSum(s, 'clearml_writer_consumer_pending_messages') === 0,
      'the ack floor moving on',
    );
    const partitions = after.samples.filter((x) => x.name === 'clearml_writer_lag_seconds');
    expect(partitions.length).toBe(PARTITIONS);
    // Caught up: nothing waits, so nothing is late.
    for (const p of partitions) expect(p.value).toBe(0);
    expect(sampleSum(after, 'clearml_writer_events_stored_total', { kind: 'point' })).toBeGreaterThan(0);
    for (const reason of ['influx_rejected', 'redis_wrongtype', 'undecodable', 'writer_error'])
      expect(hasSample(after, 'clearml_writer_dead_letters_total', { reason })).toBe(true);
  });
});

describe('query and stores', () => {
  it('times store calls by store and operation, and counts answer bytes by endpoint', async () => {
    const task = unique('metrics-query-');
    expect((await addBatch(ndjson([scalar(task, 'loss', 'v', 1, 1), scalar(task, 'loss', 'v', 2, 2)]))).status).toBe(
      200,
    );
    const before = await scrape();
    const histogram = await h.call('events.scalar_metrics_iter_histogram', { task }, { token });
    expect(histogram.status).toBe(200);
    const latest = await h.call('events.get_task_latest_scalar_values', { task }, { token });
    expect(latest.status).toBe(200);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    expect(delta('clearml_store_call_duration_seconds_count', { store: 'influx' })).toBeGreaterThan(0);
    expect(delta('clearml_store_call_duration_seconds_count', { store: 'redis' })).toBeGreaterThan(0);
    expect(hasSample(after, 'clearml_store_call_errors_total', { store: 'influx', operation: 'query' })).toBe(true);
    // Redis calls by command name (scripts run by EVALSHA).
    const redisOperations = new Set(
      after.samples
        .filter((x) => x.name === 'clearml_store_call_duration_seconds_count' && x.labels.store === 'redis')
        .map((x) => x.labels.operation),
    );
    expect(redisOperations).toContain('EVALSHA');
    expect(redisOperations).not.toContain('OTHER');
    expect(delta('clearml_api_response_size_bytes_count', { endpoint: 'events.scalar_metrics_iter_histogram' })).toBe(
      1,
    );
    expect(
      delta('clearml_api_response_size_bytes_sum', { endpoint: 'events.scalar_metrics_iter_histogram' }),
    ).toBeGreaterThan(JSON.stringify(histogram.body).length);
  });
});

describe('hostile input', () => {
  /** One round of requests carrying client values of every kind a label could have been made of. */
  async function hostileRound(): Promise<string[]> {
    const values = [
      `hx${randomBytes(6).toString('hex')}`,
      `h y"\\\n{}${randomBytes(3).toString('hex')}`,
      `Ω${randomBytes(3).toString('hex')}`,
    ];
    const [id, odd, unicode] = values as [string, string, string];
    await h.call(`v2.99/${id}.${id}`, {}, { token });
    await h.call(`${unicode}.x`, {}, { token });
    await addBatch(
      ndjson([
        scalar(id, odd, 'v', 1, 1),
        { type: odd, task: id },
        scalar(odd, 'loss', 'v', 1, 1),
        { type: 'log', task: id, msg: odd, level: odd },
      ]),
      { 'x-clearml-worker': id, 'idempotency-key': id },
    );
    await h.call('events.add', { ...scalar(id, unicode, 'v', 2, 2) }, { token });
    await h.call('events.get_task_log', { task: id }, { token });
    await h.call('events.scalar_metrics_iter_histogram', { task: odd }, { token });
    await grpcAdd(create(EventSchema, { type: odd, task: id }), metadata({ 'x-clearml-worker': id }));
    await stream([{ id: 5n, events: [protoScalar(id, 1)] }], metadata({ 'idempotency-key': id }));
    // A method the service does not have: grpc-js answers it without our counters.
    const Generic = makeGenericClientConstructor({}, 'x');
    const generic = new Generic(`127.0.0.1:${h.service.services.boundPorts.get('grpc')}`, credentials.createInsecure());
    await new Promise((resolve) =>
      generic.makeUnaryRequest(
        `/clearml.events.v1.EventsIngest/${id}`,
        (x: Buffer) => x,
        (x: Buffer) => x,
        Buffer.alloc(0),
        metadata(),
        () => resolve(undefined),
      ),
    );
    generic.close();
    return values;
  }

  const clearmlSeries = (s: Scrape) =>
    new Set(
      s.samples
        .filter((x) => x.name.startsWith('clearml_') && x.labels.partition === undefined)
        .map((x) => `${x.name}${JSON.stringify(Object.entries(x.labels).sort())}`),
    );

  it('creates no series from client values, however many distinct ones arrive', async () => {
    const seen: string[] = [];
    seen.push(...(await hostileRound()), ...(await hostileRound()));
    const first = await scrapeUntil(
      (s) =>
        sampleSum(s, 'clearml_writer_consumer_pending_messages') === 0 && hasSample(s, 'clearml_writer_lag_seconds'),
      'writers caught up',
    );
    for (let i = 0; i < 15; i++) seen.push(...(await hostileRound()));
    const last = await scrapeUntil(
      (s) => sampleSum(s, 'clearml_writer_consumer_pending_messages') === 0,
      'writers caught up',
    );
    expect([...clearmlSeries(last)].filter((key) => !clearmlSeries(first).has(key))).toEqual([]);
    const labelValues = last.samples.flatMap((x) => Object.values(x.labels));
    for (const value of seen) expect(labelValues.filter((v) => v.includes(value.slice(0, 8)))).toEqual([]);
    const partitions = new Set(
      last.samples.filter((x) => x.labels.partition !== undefined).map((x) => x.labels.partition),
    );
    expect(partitions.size).toBeLessThanOrEqual(PARTITIONS);
    expect(sampleSum(last, 'clearml_api_requests_total', { endpoint: 'unknown' })).toBeGreaterThanOrEqual(34);
  });
});

describe('dashboard and alert rules', () => {
  it('name only metrics this process exports', async () => {
    const exported = seriesNames(await scrape());
    const dashboard = JSON.parse(readFileSync('deploy/grafana/clearml-events-dashboard.json', 'utf8')) as {
      panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
    };
    const rows = dashboard.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual(['Ingest', 'gRPC', 'Writer', 'Query', 'Stores']);
    const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    const alertExprs = [...readFileSync('deploy/prometheus/alerts.yml', 'utf8').matchAll(/^\s+expr: (.+)$/gm)].map(
      (m) => m[1]!,
    );
    expect(dashboardExprs.length).toBeGreaterThan(20);
    expect(alertExprs.length).toBeGreaterThanOrEqual(5);
    const named = new Set([...dashboardExprs, ...alertExprs].flatMap(promqlMetricNames));
    for (const name of [
      'clearml_ingest_events_refused_total',
      'clearml_grpc_chunk_acks_total',
      'clearml_writer_lag_seconds',
      'clearml_store_call_duration_seconds_bucket',
      'clearml_jetstream_stream_max_bytes',
    ])
      expect(named).toContain(name);
    const unknown = [...dashboardExprs, ...alertExprs].flatMap((expr) =>
      promqlMetricNames(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${name} in ${expr}`),
    );
    expect(unknown).toEqual([]);
  });
});
