// Faults issue, item 1: a re-sent request stores nothing twice (log lines included), over HTTP and
// gRPC. The ClearML SDK re-sends an add_batch whose answer it did not get; here the first copy was
// answered, which is the worst case (everything of it is stored). Absence of a second copy is proven
// with a barrier: a later event of the same task, in the same partition, is waited for first.
import { create } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import {
  EventBatchSchema,
  EventChunkSchema,
  EventSchema,
  type ChunkAck,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { afterBarrier } from '../harness/barrier.js';
import { log, logLines, ndjson, scalar } from '../harness/event-builders.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ target: 'all' });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

const addBatch = (body: string, headers: Record<string, string> = {}) =>
  h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines', ...headers },
    rawBody: body,
  });

const scalars = (task: string, n: number) =>
  Array.from({ length: n }, (_, i) => scalar(task, 'loss', 'train', i, i / 10));

/** Writes a sentinel log line after everything else of the task and waits until it is readable; answers every log message then. */
async function logsAfterBarrier(task: string): Promise<string[]> {
  const sentinel = `sentinel ${unique('')}`;
  const readLog = async () => {
    const read = await h.call('events.get_task_log', { task, batch_size: 10_000, navigate_earlier: false }, { token });
    expect(read.status).toBe(200);
    return (read.body.data.events as Array<{ msg: string }>).map((e) => e.msg);
  };
  const messages = await afterBarrier(
    async () => expect((await addBatch(ndjson([log(task, 1_900_000_000_000, sentinel)]))).status).toBe(200),
    readLog,
    (m) => m.includes(sentinel),
    { timeoutMs: 20_000 },
  );
  return messages.filter((m) => m !== sentinel);
}

async function scalarCount(task: string): Promise<number> {
  const r = await h.call(
    'events.get_task_events',
    { task, event_type: 'training_stats_scalar', batch_size: 10_000 },
    { token },
  );
  expect(r.status).toBe(200);
  return r.body.data.events.length;
}

const sorted = (lines: string[]) => [...lines].sort();
const expected = (n: number) => sorted(Array.from({ length: n }, (_, i) => `line ${i}`));

describe('a re-sent request stores nothing twice', () => {
  it('HTTP add_batch re-sent byte for byte: each log line once', async () => {
    const task = unique('idem-');
    const body = ndjson([...logLines(task, 50), ...scalars(task, 20)]);
    const first = await addBatch(body);
    const again = await addBatch(body);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.data).toEqual(first.body.data);
    expect(sorted(await logsAfterBarrier(task))).toEqual(expected(50));
    expect(await scalarCount(task)).toBe(20);
  });

  it('HTTP add_batch with an Idempotency-Key: a re-send written differently is still the same request', async () => {
    const task = unique('idem-key-');
    const key = unique('run-42/batch-7:');
    const events = logLines(task, 10);
    expect((await addBatch(ndjson(events), { 'idempotency-key': key })).status).toBe(200);
    // Another serialisation of the same events (what a client that re-encodes would send).
    expect(
      (
        await addBatch(events.map((e) => JSON.stringify(e, null, 1).replace(/\n/g, ' ')).join('\r\n'), {
          'idempotency-key': key,
        })
      ).status,
    ).toBe(200);
    expect(sorted(await logsAfterBarrier(task))).toEqual(expected(10));
  });

  it('two different requests with the same lines are both stored (no false duplicates)', async () => {
    const task = unique('idem-diff-');
    expect((await addBatch(ndjson(logLines(task, 5, 1_718_000_000_000)))).status).toBe(200);
    expect((await addBatch(ndjson(logLines(task, 5, 1_718_000_100_000)))).status).toBe(200);
    expect(sorted(await logsAfterBarrier(task))).toEqual(sorted([...expected(5), ...expected(5)]));
  });

  it('events.add re-sent: once', async () => {
    const task = unique('idem-add-');
    const event = { type: 'log', task, msg: 'line 0', timestamp: 1_718_000_000_000 };
    for (let i = 0; i < 2; i++) expect((await h.call('events.add', event, { token })).status).toBe(200);
    expect(await logsAfterBarrier(task)).toEqual(['line 0']);
  });

  it('a malformed Idempotency-Key is refused with 400/12, nothing stored', async () => {
    const task = unique('idem-bad-');
    const r = await addBatch(ndjson(logLines(task, 1)), { 'idempotency-key': 'x'.repeat(256) });
    expect(r.status).toBe(400);
    expect(r.body.meta).toMatchObject({
      result_subcode: 12,
      result_msg: 'Validation error (idempotency key must be 1 to 255 visible ASCII characters)',
    });
  });
});

describe('gRPC re-sends', () => {
  type Stream = { write(m: unknown): void; end(): void; on(e: string, f: (...a: any[]) => void): void };
  type Client = {
    AddBatch(md: Metadata, cb: (e: ServiceError | null, r: { added: number }) => void): Stream;
    StreamEvents(md: Metadata): Stream;
    close(): void;
  };
  let client: Client;
  beforeAll(() => {
    const Ctor = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
    client = new Ctor(
      `127.0.0.1:${h.service.services.boundPorts.get('grpc')}`,
      credentials.createInsecure(),
    ) as unknown as Client;
  });
  afterAll(() => client?.close());
  const metadata = (extra: Record<string, string> = {}) => {
    const md = new Metadata();
    md.set('authorization', `Bearer ${token}`);
    for (const [k, v] of Object.entries(extra)) md.set(k, v);
    return md;
  };
  const protoLogs = (task: string, n: number, text = 'line') =>
    Array.from({ length: n }, (_, i) =>
      create(EventSchema, {
        type: 'log',
        task,
        msg: `${text} ${i}`,
        timestamp: { case: 'timestampMs', value: 1_718_000_000_000 + i },
      }),
    );

  const addBatchOnce = (events: ReturnType<typeof protoLogs>) =>
    new Promise<{ added: number }>((resolve, reject) => {
      const call = client.AddBatch(metadata(), (error, result) => (error ? reject(error) : resolve(result)));
      call.write(create(EventBatchSchema, { events }));
      call.end();
    });

  /** One StreamEvents call that sends `chunks` and answers their acks. */
  const streamOnce = (
    chunks: Array<{ id: bigint; events: ReturnType<typeof protoLogs> }>,
    extra: Record<string, string> = {},
  ) =>
    new Promise<ChunkAck[]>((resolve, reject) => {
      const call = client.StreamEvents(metadata(extra));
      const acks: ChunkAck[] = [];
      call.on('data', (ack: ChunkAck) => acks.push(ack));
      call.on('error', reject);
      call.on('end', () => resolve(acks));
      for (const chunk of chunks) call.write(create(EventChunkSchema, { chunkId: chunk.id, events: chunk.events }));
      call.end();
    });

  it('AddBatch re-sent: each line once', async () => {
    const task = unique('idem-grpc-');
    const events = protoLogs(task, 20);
    expect((await addBatchOnce(events)).added).toBe(20);
    expect((await addBatchOnce(events)).added).toBe(20);
    expect(sorted(await logsAfterBarrier(task))).toEqual(expected(20));
  });

  it('a StreamEvents chunk re-sent on a new stream (same chunk id and events): once', async () => {
    const task = unique('idem-chunk-');
    const chunk = { id: 7n, events: protoLogs(task, 15) };
    expect((await streamOnce([chunk]))[0]).toMatchObject({ chunkId: 7n, added: 15 });
    expect((await streamOnce([chunk]))[0]).toMatchObject({ chunkId: 7n, added: 15 });
    expect(sorted(await logsAfterBarrier(task))).toEqual(expected(15));
  });

  it('with the stream key metadata, a chunk id names the chunk: re-sent with other bytes, still once', async () => {
    const task = unique('idem-chunk-key-');
    const key = unique('stream-');
    await streamOnce(
      [
        { id: 1n, events: protoLogs(task, 4) },
        { id: 2n, events: protoLogs(task, 3, 'second') },
      ],
      { 'idempotency-key': key },
    );
    // The client lost both acks and re-sends chunk 2 (re-encoded differently: one event fewer never happens in a
    // real client, but it proves the key decides) on a new stream.
    await streamOnce([{ id: 2n, events: protoLogs(task, 2, 'other') }], { 'idempotency-key': key });
    expect(sorted(await logsAfterBarrier(task))).toEqual(sorted([...expected(4), 'second 0', 'second 1', 'second 2']));
  });
});
