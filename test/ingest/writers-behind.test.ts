// Ingest while the writers are behind (docs/ingest.md, "When the writers are behind"): past INGEST_MAX_WRITER_LAG_MS,
// a request or gRPC chunk of a company sending at least half as much, of late, as the heaviest sender is refused with
// 429 writers_behind and Retry-After, before anything of it is registered or stored; a company sending less is taken,
// so that one company's flood does not make every other company's events wait behind it. Once the writers catch up,
// the refused company is taken again, and everything acknowledged is stored. A proxy in front of the real InfluxDB
// holds the writers' writes, as an InfluxDB that cannot keep up would.
import { create } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
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

/** One StreamEvents call with one chunk of `task`'s scalars; answers its ack. */
async function streamChunk(token: string, task: string, count: number): Promise<ChunkAck> {
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
          iter: BigInt(i),
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

it('refuses the heaviest sender while the writers are behind, takes a light one, and stores both once they catch up', async () => {
  const taskA = unique('behind-a-');
  const taskB = unique('behind-b-');
  proxy.holdWrites = true;
  // Within the bound, A's events are taken, however little the writers store.
  expect((await addBatch(series(taskA, 0, 2_000), r.tokenA)).status).toBe(200);
  await eventually(
    () => metric('clearml_ingest_writer_lag_seconds'),
    (lag) => lag > MAX_LAG_MS / 1000,
    { what: 'the writers behind the bound' },
  );
  expect(proxy.held.length).toBeGreaterThan(0);

  // A, the only sender of late and so the heaviest, is refused on every door; nothing of it is registered.
  const refusedTask = unique('behind-refused-');
  const refused = await addBatch(series(refusedTask, 0, 10), r.tokenA);
  expectError(refused, 429, 0, REFUSAL);
  expect(refused.headers['retry-after']).toBe('1');
  expectError(await r.call('events.add', scalar(refusedTask, 'loss', 'train', 0, 1)), 429, 0, REFUSAL);
  const chunk = await streamChunk(r.tokenA, refusedTask, 5);
  expect(chunk.added).toBe(0);
  expect(chunk.error).toMatchObject({ code: 429, subcode: 0, message: REFUSAL });

  // B sent nothing of late: less than half of A. Its events are taken while A's are refused.
  expect((await addBatch(series(taskB, 0, 3), r.tokenB)).status).toBe(200);
  const chunkB = await streamChunk(r.tokenB, taskB, 4);
  expect(chunkB.error).toBeUndefined();
  expect(chunkB.added).toBe(4);
  expect(await metric('clearml_ingest_writers_behind_refusals_total')).toBe(3);
  expect(await metric('clearml_ingest_events_refused_total', { reason: 'writers_behind' })).toBeGreaterThanOrEqual(3);

  // The writers catch up: A is taken again, and everything acknowledged is stored, nothing of what was refused.
  proxy.release();
  await eventually(
    async () => (await addBatch(series(taskA, 2_000, 10), r.tokenA)).status,
    (status) => status === 200,
    { what: "A's events taken again", timeoutMs: 60_000 },
  );
  await untilCount(r, taskA, 2_010, {}, 60_000);
  await eventually(
    () => r.data('events.get_task_events', { task: taskB, batch_size: 1 }, r.tokenB),
    (d) => d.total === 7,
    { what: "B's events stored", timeoutMs: 60_000 },
  );
  // Never registered: unknown to the reads.
  expectError(await r.call('events.get_task_events', { task: refusedTask, batch_size: 10 }), 400, 101);
  await eventually(
    () => metric('clearml_ingest_writer_lag_seconds'),
    (lag) => lag === 0,
    { what: 'no events waiting for the writers' },
  );
}, 120_000);
