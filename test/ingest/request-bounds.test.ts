// Hostile-input issue, "Bounded resources": one request cannot make an ingest process hold memory
// outside the in-flight budget. A request naming more distinct entities than
// INGEST_MAX_ENTITIES_PER_REQUEST is refused with 413 while its body is still streaming, nothing of it is
// registered or stored, and the process's memory does not grow (the service runs in this process).
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import {
  EventBatchSchema,
  EventChunkSchema,
  EventSchema,
  type ChunkAck,
  type Event,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { maxEventsForSize } from '../../ingest/events/event-density.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ target: 'ingest' });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

const MiB = 1024 * 1024;

function memory() {
  const m = process.memoryUsage();
  return { rss: m.rss, held: m.heapUsed + m.external };
}

/** Settled memory: after two full collections, so that only what is still referenced counts. */
function settled() {
  gc();
  gc();
  return memory();
}

describe('distinct entities per request', () => {
  it('a 200,000-entity add_batch is refused with 413 and leaves memory where it was', async () => {
    const prefix = unique('many-');
    const body = Array.from({ length: 200_000 }, (_, i) =>
      JSON.stringify({ type: 'log', task: `${prefix}-${i}`, msg: 'x' }),
    ).join('\n');
    const before = settled();
    let peak = memory();
    const sampler = setInterval(() => {
      const now = memory();
      peak = { rss: Math.max(peak.rss, now.rss), held: Math.max(peak.held, now.held) };
    }, 10);
    const r = await h.call('events.add_batch', undefined, {
      token,
      headers: { 'content-type': 'application/json-lines' },
      rawBody: body,
    });
    clearInterval(sampler);
    const after = settled();
    const figures = {
      peakRssGrowthMiB: (peak.rss - before.rss) / MiB,
      peakHeldGrowthMiB: (peak.held - before.held) / MiB,
      keptRssGrowthMiB: (after.rss - before.rss) / MiB,
      keptHeldGrowthMiB: (after.held - before.held) / MiB,
    };
    console.log(`200,000-entity request: ${JSON.stringify(figures)}`);

    expect(r.status).toBe(413);
    expect(r.body.meta).toMatchObject({
      result_code: 413,
      result_subcode: 0,
      result_msg: `Too many entities in one request (limit ${h.config.INGEST_MAX_ENTITIES_PER_REQUEST} distinct task or model ids)`,
    });
    const redis = h.service.services.stores.redis.client;
    expect(await redis.exists(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', `${prefix}-0`))).toBe(0);
    // Generous bounds, far below the ~1.4 GB this request used to leave behind; the 200,000 parsed
    // lines alone are transient garbage of some tens of MiB.
    expect(figures.peakHeldGrowthMiB).toBeLessThan(150);
    expect(figures.keptHeldGrowthMiB).toBeLessThan(20);
    expect(figures.keptRssGrowthMiB).toBeLessThan(200);
  });

  it('a request within the cap is accepted', async () => {
    const prefix = unique('few-');
    const events = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({ type: 'log', task: `${prefix}-${i}`, msg: 'x' }),
    );
    const r = await h.call('events.add_batch', undefined, {
      token,
      headers: { 'content-type': 'application/json-lines' },
      rawBody: events.join('\n'),
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ added: 100, errors: 0, errors_info: {} });
  });
});

type Client = {
  AddBatch(md: Metadata, cb: (e: ServiceError | null, r: unknown) => void): { write(m: unknown): void; end(): void };
  StreamEvents(md: Metadata): NodeJS.EventEmitter & { write(m: unknown): void; end(): void };
  close(): void;
};

function client(): { grpc: Client; metadata: Metadata } {
  const Constructor = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
  const grpc = new Constructor(
    `127.0.0.1:${h.service.services.boundPorts.get('grpc')}`,
    credentials.createInsecure(),
  ) as unknown as Client;
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return { grpc, metadata };
}

/** Sends the chunks on one StreamEvents call and answers the acks it got. */
async function streamAcks(chunks: unknown[]): Promise<ChunkAck[]> {
  const { grpc, metadata } = client();
  try {
    return await new Promise<ChunkAck[]>((resolve, reject) => {
      const received: ChunkAck[] = [];
      const call = grpc.StreamEvents(metadata);
      call.on('data', (ack: ChunkAck) => received.push(ack));
      call.on('error', reject);
      call.on('end', () => resolve(received));
      for (const chunk of chunks) call.write(chunk);
      call.end();
    });
  } finally {
    grpc.close();
  }
}

describe('distinct entities per gRPC call and chunk', () => {
  const logs = (prefix: string, n: number): Event[] =>
    Array.from({ length: n }, (_, i) => create(EventSchema, { type: 'log', task: `${prefix}-${i}`, msg: 'x' }));

  it('AddBatch beyond the cap: RESOURCE_EXHAUSTED with code 413, nothing registered', async () => {
    const prefix = unique('grpc-many-');
    const cap = h.config.INGEST_MAX_ENTITIES_PER_REQUEST;
    const { grpc, metadata } = client();
    try {
      const error = await new Promise<ServiceError>((resolve, reject) => {
        const call = grpc.AddBatch(metadata, (e) => (e ? resolve(e) : reject(new Error('accepted'))));
        call.write(create(EventBatchSchema, { events: logs(prefix, cap + 1) }));
        call.end();
      });
      expect(error.code).toBe(8);
      expect(error.details).toBe(`Too many entities in one request (limit ${cap} distinct task or model ids)`);
      expect(error.metadata.get('clearml-result-code')).toEqual(['413']);
    } finally {
      grpc.close();
    }
    expect(
      await h.service.services.stores.redis.client.exists(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', `${prefix}-0`)),
    ).toBe(0);
  });

  it('StreamEvents: a chunk beyond the cap is refused in its ack, the next chunk is accepted', async () => {
    const prefix = unique('grpc-chunk-');
    const cap = h.config.INGEST_MAX_ENTITIES_PER_REQUEST;
    const acks = await streamAcks([
      create(EventChunkSchema, { chunkId: 1n, events: logs(prefix, cap + 1) }),
      create(EventChunkSchema, { chunkId: 2n, events: logs(`${prefix}-ok`, 3) }),
    ]);
    expect(acks.map((a) => [a.chunkId, a.added, a.error?.code])).toEqual([
      [1n, 0, 413],
      [2n, 3, undefined],
    ]);
    expect(acks[0]!.error!.message).toBe(`Too many entities in one request (limit ${cap} distinct task or model ids)`);
  });
});

describe('events per gRPC message', () => {
  // An empty Event is 2 bytes on the wire and ~150 bytes of heap and 0.85 µs once protobuf-es built it:
  // a 63 MiB AddBatch message of them ran an ingest process out of heap after 72 s.
  const empties = (n: number): Event[] => Array.from({ length: n }, () => create(EventSchema, {}));
  const refusal = (bytes: number) =>
    `Validation error (request holds more than ${maxEventsForSize(bytes)} events in ${bytes} bytes: at most 1000 and one per 16 bytes)`;

  it('AddBatch: a message with more events than its size allows is refused with 400/12 before it is decoded', async () => {
    const batch = create(EventBatchSchema, { events: empties(100_000) });
    const bytes = toBinary(EventBatchSchema, batch).length;
    const { grpc, metadata } = client();
    try {
      const error = await new Promise<ServiceError>((resolve, reject) => {
        const call = grpc.AddBatch(metadata, (e) => (e ? resolve(e) : reject(new Error('accepted'))));
        call.write(batch);
        call.end();
      });
      expect(error.code).toBe(3);
      expect(error.details).toBe(refusal(bytes));
      expect(error.metadata.get('clearml-result-code')).toEqual(['400']);
    } finally {
      grpc.close();
    }
  });

  it('StreamEvents: such a chunk is refused in its ack, plain or not, and the next chunk is accepted', async () => {
    const prefix = unique('grpc-empties-');
    // Empty events are plain protobuf (the chunk reader's own pass); an unknown field sends the chunk to protobuf-es.
    const plain = create(EventChunkSchema, { chunkId: 1n, events: empties(100_000) });
    const plainBytes = toBinary(EventChunkSchema, plain);
    const unknownField = Buffer.concat([plainBytes, Buffer.from([0x18, 0x01])]);
    const acks = await streamAcks([
      plain,
      fromBinary(EventChunkSchema, unknownField, { readUnknownFields: true }),
      create(EventChunkSchema, { chunkId: 2n, events: [create(EventSchema, { type: 'log', task: prefix, msg: 'x' })] }),
    ]);
    expect(acks.map((a) => [a.chunkId, a.added, a.error?.code, a.error?.message])).toEqual([
      [1n, 0, 400, refusal(plainBytes.length)],
      [1n, 0, 400, refusal(unknownField.length)],
      [2n, 1, undefined, undefined],
    ]);
  });
});

describe('events per HTTP add_batch body', () => {
  // A line of `{}` is an (invalid) event of three characters: JSON.parse and the event checks cost ~1.3 µs each,
  // 430 ns of CPU a byte of body against 100-210 for log lines. At most 1,000 events and one per 16 characters.
  const send = (body: string, type = 'application/json-lines') =>
    h.call('events.add_batch', undefined, { token, headers: { 'content-type': type }, rawBody: body });
  const owner = (task: string) => redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', task);
  const redis = () => h.service.services.stores.redis.client;

  /** Where the rule stops a body of lines, as docs/ingest.md states it: after the first line beyond the bound. */
  function firstBreach(lines: string[]): { events: number; characters: number } | undefined {
    let events = 0;
    let characters = 0;
    for (const line of lines) {
      if (line.trim() === '') continue;
      events++;
      characters += line.length + 1;
      if (events > 1_000 + Math.floor(characters / 16))
        return { events: 1_000 + Math.floor(characters / 16), characters };
    }
    return undefined;
  }

  it('NDJSON: a line beyond the bound refuses the request with 400/12 as it arrives; nothing is registered', async () => {
    const task = unique('dense-');
    const lines = [
      ...Array.from({ length: 20 }, (_, i) => JSON.stringify({ type: 'log', task, msg: `m${i}` })),
      ...Array<string>(300_000).fill('{}'),
    ];
    const breach = firstBreach(lines)!;
    expect(breach.events).toBeLessThan(1_400); // refused long before the 300,000th line
    const r = await send(lines.join('\n'));
    expect(r.status).toBe(400);
    expect(r.body.meta).toMatchObject({
      result_subcode: 12,
      result_msg: `Validation error (request holds more than ${breach.events} events in its first ${breach.characters} characters of lines: at most 1000 and one per 16 characters)`,
    });
    expect(await redis().exists(owner(task))).toBe(0);
  });

  it('NDJSON: a body at the bound is read whole, its invalid events counted', async () => {
    const task = unique('sparse-');
    // 1,000 events of `{}`, then lines of 16 characters with their separator: the bound grows by one a line.
    const lines = [
      ...Array<string>(1_000).fill('{}'),
      ...Array<string>(5_000).fill('{"a":"1234567"}'),
      JSON.stringify({ type: 'log', task, msg: 'kept' }),
    ];
    expect(firstBreach(lines)).toBeUndefined();
    const r = await send(lines.join('\r\n'));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ added: 1, errors: 6_000 });
    expect(await redis().exists(owner(task))).toBe(1);
  });

  it('a JSON array body: the same bound over its text', async () => {
    const task = unique('array-');
    const items = (n: number) => [JSON.stringify({ type: 'log', task, msg: 'm' }), ...Array<string>(n).fill('{}')];
    const text = (n: number) => `[${items(n).join(',')}]`;
    const bound = (body: string) => 1_000 + Math.floor(body.length / 16);
    let n = 1_000;
    while (n + 2 <= bound(text(n + 1))) n += 1;
    // n + 1 events in text(n): within the bound. One more `{}` passes it.
    const within = await send(text(n), 'application/json');
    expect(within.status).toBe(200);
    expect(within.body.data).toMatchObject({ added: 1, errors: n });
    const over = await send(text(n + 1), 'application/json');
    expect(over.status).toBe(400);
    expect(over.body.meta.result_msg).toBe(
      `Validation error (request holds more than ${bound(text(n + 1))} events in ${text(n + 1).length} characters: at most 1000 and one per 16 characters)`,
    );
  });
});

describe('the in-flight budget counts what a request holds, not only its encoded events', () => {
  let small: Harness;
  let smallToken: string;
  beforeAll(async () => {
    small = await startHarness({ target: 'ingest', env: { INGEST_MAX_INFLIGHT_BYTES: String(MiB) } });
    smallToken = await small.login(small.credentials.a);
  });
  afterAll(() => small?.stop());

  const send = (lines: string[]) =>
    small.call('events.add_batch', undefined, {
      token: smallToken,
      headers: { 'content-type': 'application/json-lines' },
      rawBody: lines.join('\n'),
    });

  it('1,000 one-event entities (~100 KB of records, MBs of state) exceed a 1 MiB budget: 413, then the budget is free again', async () => {
    const prefix = unique('budget-');
    const r = await send(
      Array.from({ length: 1000 }, (_, i) => JSON.stringify({ type: 'log', task: `${prefix}-${i}`, msg: 'x' })),
    );
    expect(r.status).toBe(413);
    expect(r.body.meta.result_msg).toBe(
      `Request body too large (the request needs more than INGEST_MAX_INFLIGHT_BYTES (${MiB} bytes) in memory)`,
    );
    // Released: a request that fits is accepted at once (not 429).
    const ok = await send(
      Array.from({ length: 50 }, (_, i) => JSON.stringify({ type: 'log', task: `${prefix}-ok-${i}`, msg: 'x' })),
    );
    expect(ok.status).toBe(200);
  });
});
