// events.add / events.add_batch over HTTP (events.md §1.3, §1.8-§1.10, §2), ingest target alone:
// responses, per-event rejections, request-level rules, registration, and the records in JetStream.
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRecords, partitionOf, streamName } from '../../shared/events/wire-format.js';
import { maxJsonContainers } from '../../shared/protocol/client-object.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { ndjson } from '../harness/event-builders.js';

let h: Harness;
let tokenA: string;
let tokenB: string;
let nc: NatsConnection;

beforeAll(async () => {
  h = await startHarness({ target: 'ingest', env: { MAX_BODY_BYTES: String(2 * 1024 * 1024) } });
  [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
  nc = await connect({ servers: h.env.NATS_URL });
});
afterAll(async () => {
  await nc?.close();
  await h?.stop();
});

function batch(events: unknown[] | string, token = tokenA, contentType = 'application/json-lines', method = 'GET') {
  return h.call('v2.23/events.add_batch', undefined, {
    token,
    method,
    headers: { 'content-type': contentType, 'x-clearml-worker': 'node-7' },
    rawBody: typeof events === 'string' ? events : ndjson(events),
  });
}

/** Every record published for an entity so far, decoded (read by sequence: reading does not consume). */
async function publishedRecords(entity: string): Promise<Array<{ kind: string; body: string }>> {
  const jsm = await nc.jetstreamManager();
  const stream = streamName(h.env.NATS_STREAM_PREFIX!);
  const { state } = await jsm.streams.info(stream);
  const out: Array<{ kind: string; body: string }> = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
    if (message === undefined) continue;
    for (const r of decodeRecords(new TextDecoder().decode(message.data))) if (r.body.includes(entity)) out.push(r);
  }
  return out;
}

describe('events.add_batch responses', () => {
  it('accepts the SDK form: GET, application/json-lines, Python separators, a version prefix', async () => {
    const task = unique('task-');
    const body = [
      `{"timestamp": 1718000000123, "type": "training_stats_scalar", "task": "${task}", "iter": 120, "metric": "loss", "variant": "train", "value": 0.4132, "model_event": false, "allow_locked": false}`,
      `{"timestamp": 1718000001000, "type": "log", "task": "${task}", "level": "info", "msg": "epoch 3 done\\nval acc 0.91", "model_event": false, "allow_locked": false}`,
    ].join('\n');
    const r = await batch(body);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ added: 2, errors: 0, errors_info: {} });
  });

  it('counts rejections by reason and keeps the good events (the contract example)', async () => {
    const foreign = unique('task-b-');
    expect((await batch([{ type: 'log', task: foreign, msg: 'x' }], tokenB)).status).toBe(200);
    const task = unique('task-');
    const r = await batch([
      { type: 'unknown_type', task },
      { type: 'log', msg: 'no task' },
      { type: 'log', task: foreign, msg: 'other company' },
      { type: 'training_stats_scalar', task, iter: 1, metric: 'm', variant: 'v', value: 1 },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      added: 1,
      errors: 3,
      errors_info: {
        'Invalid event type unknown_type': 1,
        "Event must have a 'task' field": 1,
        [`Invalid task id ${foreign}`]: 1,
      },
    });
  });

  // The rules themselves are rows of ingest/events/event-normalizer.test.ts and request-rules.test.ts;
  // these prove that they are wired in, one per phase of §1.3 (steps 2-5, the id's form, steps 7-10),
  // and the 400/131 envelope of a request whose only event is refused.
  it.each([
    [{ type: 'nope', task: 't' }, 'Invalid event type nope'],
    [{ type: 'training stats scalar', task: '' }, 'Invalid task id '],
    [{ type: 'log', task: 'T', iter: 'abc' }, "Invalid value for field 'iter'"],
  ])('rejects %j: %s', async (event, reason) => {
    const r = await batch([event]);
    expect(r.status).toBe(400);
    expect(r.body.meta).toMatchObject({
      result_code: 400,
      result_subcode: 131,
      result_msg: `Events not added: ${reason}=1`,
    });
  });

  it('lists every reason in order of first occurrence when all events are rejected', async () => {
    const r = await batch([{ type: 'x', task: 't' }, { task: 't' }, { type: 'x', task: 't' }]);
    expect(r.body.meta.result_msg).toBe("Events not added: Invalid event type x=2, Event must have a 'type' field=1");
  });

  it('an empty batch or only blank lines: 400/17', async () => {
    for (const body of ['', '\n  \n\r\n']) {
      const r = await batch(body);
      expect(r.status).toBe(400);
      expect(r.body.meta).toMatchObject({ result_subcode: 17, result_msg: 'Batch request contains no items' });
    }
    expect((await batch('[]', tokenA, 'application/json')).body.meta.result_subcode).toBe(17);
  });

  it('a malformed line rejects the whole request and stores nothing', async () => {
    const task = unique('task-');
    const r = await batch(`${JSON.stringify({ type: 'log', task, msg: 'ok' })}\n{broken`);
    expect(r.status).toBe(400);
    expect(r.body.meta).toMatchObject({
      result_subcode: 0,
      result_msg: 'The browser (or proxy) sent a request that this server could not understand.',
    });
    const r2 = await batch(`${JSON.stringify({ type: 'log', task, msg: 'ok' })}\n[1]`);
    expect(r2.body.meta.result_msg).toBe('json lines must contain objects, found: list');
    expect(await publishedRecords(task)).toEqual([]);
    expect(
      await h.service.services.stores.redis.client.exists(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', task)),
    ).toBe(0);
  });

  it('an event holding more objects and lists than its length allows rejects the whole request, before JSON.parse', async () => {
    // 100,000 empty objects in 300 KB: JSON.parse builds each one (43 s and 1.4 GB for 64 MiB of them).
    const task = unique('task-');
    const ok = JSON.stringify({ type: 'log', task, msg: 'ok' });
    const bomb = `{"type": "log", "task": "${task}", "msg": "m", "extra": [${Array(100_000).fill('{}').join(',')}]}`;
    const refusal = (text: string) => ({
      result_code: 400,
      result_subcode: 12,
      result_msg: `Validation error (request data holds more than ${maxJsonContainers(text.length)} objects and lists in ${text.length} characters: at most 10000 and one per 16 characters)`,
    });
    expect((await batch(`${ok}\n${bomb}\n${ok}`)).body.meta).toMatchObject(refusal(bomb));
    const inList = `[${ok}, ${bomb}]`;
    expect((await batch(inList, tokenA, 'application/json')).body.meta).toMatchObject(refusal(inList));
    expect(await publishedRecords(task)).toEqual([]);
  });

  it('accepts x-ndjson with parameters, CRLF and CR line breaks, a JSON array and a single object', async () => {
    const task = unique('task-');
    const line = (i: number) => JSON.stringify({ type: 'log', task, msg: `m${i}` });
    expect(
      (await batch(`${line(1)}\r\n${line(2)}\r${line(3)}\n`, tokenA, 'application/x-ndjson; charset=utf-8')).body.data
        .added,
    ).toBe(3);
    expect((await batch(`[${line(4)}, ${line(5)}]`, tokenA, 'application/json')).body.data.added).toBe(2);
    expect((await batch(line(6), tokenA, 'application/json')).body.data.added).toBe(1);
    expect((await batch('[1]', tokenA, 'application/json')).body.meta.result_msg).toBe(
      'json lines must contain objects, found: int',
    );
  });

  it('a body over the limit: 413 and nothing stored', async () => {
    const task = unique('task-');
    const events = Array.from({ length: 30_000 }, (_, i) => ({
      type: 'log',
      task,
      msg: `line ${i} ${'x'.repeat(60)}`,
    }));
    const r = await batch(events);
    expect(r.status).toBe(413);
    expect(r.body.meta).toMatchObject({
      result_code: 413,
      result_subcode: 0,
      result_msg: `Request body too large (limit ${2 * 1024 * 1024} bytes)`,
    });
    expect(await publishedRecords(task)).toEqual([]);
  });
});

describe('request-level rules (§1.8, §1.9)', () => {
  it('the same id as task and as model rejects the whole request', async () => {
    const id = unique('id-');
    const r = await batch([
      { type: 'training_stats_scalar', task: id, value: 1 },
      { type: 'training_stats_scalar', task: id, model_event: true, value: 1 },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.meta).toMatchObject({
      result_subcode: 12,
      result_msg: `Validation error (Inconsistent model_event setting in the passed events): tasks=(${id})`,
    });
    expect(await publishedRecords(id)).toEqual([]);
  });

  it('task and model events of different ids mix freely; model moves into task', async () => {
    const task = unique('task-');
    const model = unique('model-');
    const r = await batch([
      { type: 'training_stats_scalar', task, value: 1, iter: 0 },
      { type: 'training_stats_scalar', task: 'ignored', model, model_event: true, value: 2, iter: 0 },
    ]);
    expect(r.body.data.added).toBe(2);
    const redis = h.service.services.stores.redis.client;
    expect(await redis.hGet(redisKeys(h.env.REDIS_KEY_PREFIX!).model(h.credentials.a.company, model), 'company')).toBe(
      h.credentials.a.company,
    );
    expect(await redis.exists(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('m', 'ignored'))).toBe(0);
  });

  it('inconsistent allow_locked for one entity rejects the whole request', async () => {
    const task = unique('task-');
    const r = await batch([
      { type: 'log', task, msg: 'a', allow_locked: true },
      { type: 'log', task, msg: 'b' },
    ]);
    expect(r.body.meta).toMatchObject({
      result_subcode: 12,
      result_msg: `Validation error (Inconsistent allow_locked setting in the passed events for ${task})`,
    });
  });

  it('a locked task refuses events unless allow_locked', async () => {
    const task = unique('task-');
    await batch([{ type: 'log', task, msg: 'a' }]);
    await h.service.services.stores.redis.client.hSet(
      redisKeys(h.env.REDIS_KEY_PREFIX!).task(h.credentials.a.company, task),
      'status',
      'published',
    );
    const refused = await batch([{ type: 'log', task, msg: 'b' }]);
    expect(refused.body.meta.result_msg).toBe(`Events not added: Invalid task id ${task}=1`);
    const allowed = await batch([{ type: 'log', task, msg: 'c', allow_locked: true }]);
    expect(allowed.body.data.added).toBe(1);
  });
});

describe('registration (§1.10)', () => {
  it('registers an unknown task in the caller company with the implicit record', async () => {
    const task = unique('task-');
    await batch([{ type: 'log', task, msg: 'a' }]);
    const record = await h.service.services.stores.redis.client.hGetAll(
      redisKeys(h.env.REDIS_KEY_PREFIX!).task(h.credentials.a.company, task),
    );
    expect(record).toMatchObject({
      company: h.credentials.a.company,
      name: task,
      type: 'training',
      status: 'in_progress',
      user: h.credentials.a.user,
    });
  });

  it('registers nothing when every event is rejected', async () => {
    const task = unique('task-');
    await batch([{ type: 'training_stats_scalar', task }]);
    expect(
      await h.service.services.stores.redis.client.exists(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', task)),
    ).toBe(0);
  });

  it('two companies racing for one new id: exactly one wins', async () => {
    const task = unique('race-');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => batch([{ type: 'log', task, msg: `m${i}` }], i % 2 ? tokenA : tokenB)),
    );
    const owner = await h.service.services.stores.redis.client.get(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', task));
    const ownerToken = owner === h.credentials.a.company ? 1 : 0;
    results.forEach((r, i) => expect(r.status).toBe(i % 2 === ownerToken ? 200 : 400));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
  });
});

describe('what reaches JetStream', () => {
  it('formats InfluxDB points once at ingest, with tags, fields and the iteration as time', async () => {
    const task = unique('task-');
    await batch([
      {
        type: 'training_stats_scalar',
        task,
        iter: 7,
        metric: 'loss',
        variant: 'train',
        value: 0.5,
        timestamp: 1718000000123,
      },
      {
        type: 'training_stats_scalar',
        task,
        metric: 'a b,c=d',
        variant: '',
        value: 2,
        timestamp: '2024-06-10T06:13:20.200Z',
      },
    ]);
    const records = await publishedRecords(task);
    const points = records.filter((r) => r.kind === 'I').map((r) => r.body);
    expect(points[0]).toMatch(
      new RegExp(
        `^scalar,c=${h.credentials.a.company},e=${task},m=loss,n=t,v=train y=0.5,ts=1718000000123i,at=\\d+i,w="node-7" 7$`,
      ),
    );
    expect(points[1]).toMatch(
      /^scalar,c=.*,m=a\\ b\\,c\\=d,n=t,v=~ y=2,ts=1718000000200i,at=\d+i,w="node-7" -9223372036854775806$/,
    );
    const summary = JSON.parse(records.find((r) => r.kind === 'R')!.body);
    expect(summary).toMatchObject({ c: h.credentials.a.company, n: 't', e: task, lastIter: 7 });
  });

  it('sends what the points of a message share once: an E record, the series head in an H record, then K records; a point of another worker whole', async () => {
    const task = unique('task-');
    const scalar = (iter: number, worker?: string) => ({
      type: 'training_stats_scalar',
      task,
      iter,
      metric: 'loss',
      variant: 'train',
      value: iter / 2,
      timestamp: 1718000000000 + iter,
      ...(worker === undefined ? {} : { worker }),
    });
    await batch([scalar(1), scalar(2), scalar(3, 'gpu-2'), scalar(4)]);
    const payloads = await publishedPayloads(task);
    expect(payloads).toHaveLength(1);
    const { payload, version } = payloads[0]!;
    expect(version).toBe('3');
    const company = h.credentials.a.company;
    const header = new RegExp(`^E\\d+:,c=${company},e=${task}\n,at=\\d+i,w="node-7"`);
    expect(payload).toMatch(header);
    expect(payload.match(/H\d+:scalar,m=loss,n=t,v=train y=K/g)).toHaveLength(1);
    expect(payload.match(/K\d+:0 [\d.]+,ts=\d+i \d/g)).toHaveLength(3);
    expect(payload).toMatch(/I\d+:scalar,c=[^\n]*,w="gpu-2" 3K/);
    // Read back, each is the whole point, with its own worker.
    const points = (await publishedRecords(task)).filter((r) => r.kind === 'I').map((r) => r.body);
    expect(points).toEqual([
      expect.stringMatching(
        new RegExp(`^scalar,c=${company},e=${task},m=loss,n=t,v=train y=0.5,ts=1718000000001i,at=\\d+i,w="node-7" 1$`),
      ),
      expect.stringMatching(
        new RegExp(`^scalar,c=${company},e=${task},.* y=1,ts=1718000000002i,at=\\d+i,w="node-7" 2$`),
      ),
      expect.stringMatching(
        new RegExp(`^scalar,c=${company},e=${task},.* y=1.5,ts=1718000000003i,at=\\d+i,w="gpu-2" 3$`),
      ),
      expect.stringMatching(
        new RegExp(`^scalar,c=${company},e=${task},.* y=2,ts=1718000000004i,at=\\d+i,w="node-7" 4$`),
      ),
    ]);
  });

  it('packs the records of entities of one partition into one message, each entity in line order', async () => {
    const partitions = Number(h.env.NATS_PARTITIONS ?? 8);
    const first = unique('task-');
    let second = unique('task-');
    while (partitionOf('t', second, partitions) !== partitionOf('t', first, partitions)) second = unique('task-');
    const scalar = (task: string, iter: number) => ({
      type: 'training_stats_scalar',
      task,
      iter,
      metric: 'loss',
      variant: 'train',
      value: iter,
    });
    await batch([scalar(first, 1), scalar(second, 1), scalar(first, 2), scalar(second, 2)]);
    const payloads = await publishedPayloads(first);
    expect(payloads).toHaveLength(1);
    const records = [...decodeRecords(payloads[0]!.payload)];
    const owner = (body: string) => (body.includes(first) ? 'first' : 'second');
    // One entity's points, then its summary, then the next entity's.
    expect(records.map((r) => `${r.kind} ${owner(r.body)}`)).toEqual([
      'I first',
      'I first',
      'R first',
      'I second',
      'I second',
      'R second',
    ]);
    expect(records.filter((r) => r.kind === 'I').map((r) => r.body.split(' ').pop())).toEqual(['1', '2', '1', '2']);
  });
});

/** The raw payloads (and wire version) of the messages holding an entity's records. */
async function publishedPayloads(entity: string): Promise<Array<{ payload: string; version?: string }>> {
  const jsm = await nc.jetstreamManager();
  const stream = streamName(h.env.NATS_STREAM_PREFIX!);
  const { state } = await jsm.streams.info(stream);
  const out: Array<{ payload: string; version?: string }> = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
    if (message === undefined) continue;
    const payload = new TextDecoder().decode(message.data);
    if (payload.includes(`,e=${entity}\n`)) out.push({ payload, version: message.header.get('v') || undefined });
  }
  return out;
}
