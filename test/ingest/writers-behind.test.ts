// Ingest while the writers are behind (docs/ingest.md, "When the writers are behind"): past INGEST_MAX_WRITER_LAG_MS,
// a request or gRPC chunk of a company sending at least half as much, of late, as the heaviest sender is refused with
// 429 writers_behind and Retry-After, before anything of it is registered or stored; a company sending less is taken,
// so that one company's flood does not make every other company's events wait behind it. Once the writers catch up,
// the refused company is taken again, and everything acknowledged is stored. While the writers store nothing at all
// (a store down), nobody is refused: JetStream keeps what arrives. A proxy in front of the real InfluxDB lets the
// writers' writes through one at a time (an InfluxDB slower than the load), or holds them all (InfluxDB down).
import { create } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata } from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { partitionOf } from '../../shared/events/wire-format.js';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import {
  EventChunkSchema,
  EventSchema,
  type ChunkAck,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { ndjson, scalar } from '../harness/event-builders.js';
import { eventually } from '../harness/eventually.js';
import { holdingProxy, type HoldingProxy } from '../harness/holding-influx-proxy.js';
import { parsePrometheusText } from '../harness/prometheus-text.js';
import {
  expectError,
  startServiceFixture,
  unique,
  untilCount,
  type ServiceFixture,
} from '../harness/service-fixture.js';

const MAX_LAG_MS = 1_000;
const REFUSAL = 'Events arrive faster than they are stored, retry later';

let proxy: HoldingProxy;
let r: ServiceFixture;
beforeAll(async () => {
  proxy = await holdingProxy(inject('stack').influxUrl);
  r = await startServiceFixture({ env: { INFLUX_URL: proxy.url, INGEST_MAX_WRITER_LAG_MS: String(MAX_LAG_MS) } });
}, 60_000);
afterEach(() => proxy.release());
afterAll(async () => {
  proxy?.release();
  await r?.stop();
  await proxy?.close();
});

const series = (task: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => scalar(task, 'loss', 'train', from + i, i / 7));

const addBatch = (events: readonly object[], token: string) =>
  r.h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: ndjson(events),
  });

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${r.h.baseUrl}/metrics`)).text();
  const sample = parsePrometheusText(text).samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return sample?.value ?? Number.NaN;
}

/** One StreamEvents call with one chunk of `task`'s scalars from iteration `fromIter`; answers its ack. */
async function streamChunk(token: string, task: string, fromIter: number, count: number): Promise<ChunkAck> {
  const Client = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
  const client = new Client(r.h.grpcAddress, credentials.createInsecure()) as unknown as {
    StreamEvents(md: Metadata): NodeJS.EventEmitter & { write(m: unknown): void; end(): void };
    close(): void;
  };
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  try {
    return await new Promise<ChunkAck>((resolve, reject) => {
      const call = client.StreamEvents(metadata);
      call.on('data', (ack: ChunkAck) => resolve(ack));
      call.on('error', reject);
      const events = Array.from({ length: count }, (_, i) =>
        create(EventSchema, {
          type: 'training_stats_scalar',
          task,
          metric: 'loss',
          variant: 'grpc',
          iter: BigInt(fromIter + i),
          value: i,
        }),
      );
      call.write(create(EventChunkSchema, { chunkId: 0n, events }));
      call.end();
    });
  } finally {
    client.close();
  }
}

/** One task in each partition: a company's load that every partition's writer must store. */
function taskPerPartition(prefix: string): string[] {
  const tasks: string[] = [];
  for (let p = 0; p < r.h.config.NATS_PARTITIONS; p++)
    for (let n = 0; ; n++) {
      const task = `${prefix}${n}`;
      if (partitionOf('t', task, r.h.config.NATS_PARTITIONS) === p) {
        tasks.push(task);
        break;
      }
    }
  return tasks;
}

/** Company A's flood: add_batch after add_batch, each 250 events of every task, again after Retry-After when refused. */
function flood(tasks: string[]) {
  const accepted = new Map(tasks.map((t) => [t, 0]));
  let refusals = 0;
  let running = true;
  const done = (async () => {
    for (let round = 0; running; round++) {
      const events = tasks.flatMap((task) => series(task, round * 250, 250));
      const answer = await addBatch(events, r.tokenA);
      if (answer.status === 200) for (const task of tasks) accepted.set(task, accepted.get(task)! + 250);
      else {
        expectError(answer, 429, 0, REFUSAL);
        refusals += 1;
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after']) * 1000));
      }
    }
  })();
  return {
    accepted,
    get refusals() {
      return refusals;
    },
    stop: () => ((running = false), done),
  };
}

const taskEvents = (task: string, token: string) =>
  r.data('events.get_task_events', { task, batch_size: 1 }, token).then((d) => d.total as number);

it('while the writers store slower than company A sends, A is refused and company B is taken; all acknowledged is stored', async () => {
  const tasksA = taskPerPartition(unique('behind-a-'));
  const taskB = unique('behind-b-');
  proxy.trickleWrites(600);
  const a = flood(tasksA);
  try {
    await eventually(
      () => Promise.resolve(a.refusals),
      (n) => n > 0,
      { what: "A's flood refused", timeoutMs: 60_000 },
    );
    expect(await metric('clearml_ingest_writer_lag_seconds')).toBeGreaterThan(MAX_LAG_MS / 1000);
    // B sent nothing of late: less than half of A. Its events are taken on every door while A floods.
    for (let i = 0; i < 3; i++) {
      expect((await addBatch(series(taskB, i, 1), r.tokenB)).status).toBe(200);
      const chunk = await streamChunk(r.tokenB, taskB, i, 1);
      expect(chunk.error).toBeUndefined();
      expect(chunk.added).toBe(1);
    }
    // A's other doors are refused alike (while the flood keeps the writers behind; it may get in between).
    const refusedTask = unique('behind-refused-');
    await eventually(
      () => r.call('events.add', scalar(refusedTask, 'loss', 'train', 0, 1)),
      (answer) => answer.status === 429 && answer.body.meta.result_msg === REFUSAL,
      { what: "A's events.add refused" },
    );
    await eventually(
      () => streamChunk(r.tokenA, refusedTask, 0, 5),
      (ack) => ack.error?.code === 429 && ack.error.message === REFUSAL && ack.added === 0,
      { what: "A's gRPC chunk refused" },
    );
  } finally {
    await a.stop();
  }
  expect(await metric('clearml_ingest_writers_behind_refusals_total')).toBeGreaterThanOrEqual(a.refusals + 2);
  expect(await metric('clearml_ingest_events_refused_total', { reason: 'writers_behind' })).toBeGreaterThan(0);

  proxy.release();
  for (const task of tasksA)
    await eventually(
      () => taskEvents(task, r.tokenA),
      (total) => total === a.accepted.get(task),
      { what: `A's ${task} stored`, timeoutMs: 60_000 },
    );
  await eventually(
    () => taskEvents(taskB, r.tokenB),
    (total) => total === 6,
    { what: "B's events stored", timeoutMs: 60_000 },
  );
  // Caught up: A is taken again.
  await eventually(
    () => metric('clearml_ingest_writer_lag_seconds'),
    (lag) => lag === 0,
    { what: 'no events waiting for the writers' },
  );
  expect((await addBatch(series(tasksA[0]!, 1_000_000, 10), r.tokenA)).status).toBe(200);
}, 180_000);

it('while the writers store nothing at all (InfluxDB down), nobody is refused: JetStream keeps the events', async () => {
  const taskA = unique('stalled-a-');
  proxy.holdWrites = true;
  expect((await addBatch(series(taskA, 0, 2_000), r.tokenA)).status).toBe(200);
  await eventually(
    () => metric('clearml_ingest_writer_lag_seconds'),
    (lag) => lag > (2 * MAX_LAG_MS) / 1000,
    { what: 'the writers behind the bound' },
  );
  const refusalsBefore = await metric('clearml_ingest_writers_behind_refusals_total');
  // A is the only sender and the heaviest; it would be refused if the writers were storing anything.
  const more = unique('stalled-more-');
  expect((await addBatch(series(more, 0, 10), r.tokenA)).status).toBe(200);
  expect((await r.call('events.add', scalar(more, 'loss', 'train', 10, 1))).status).toBe(200);
  const chunk = await streamChunk(r.tokenA, more, 100, 5);
  expect(chunk.error).toBeUndefined();
  expect(chunk.added).toBe(5);
  expect(await metric('clearml_ingest_writers_behind_refusals_total')).toBe(refusalsBefore);

  proxy.release();
  await untilCount(r, taskA, 2_000, {}, 60_000);
  await untilCount(r, more, 16, {}, 60_000);
}, 120_000);
