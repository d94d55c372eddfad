// Hostile-input issue, item 1 ("the door decides"), end to end over HTTP with the whole pipeline:
// an event a store could not take is rejected per event (counted in errors/errors_info, add_batch
// semantics, events.md §2.2-2.3) while the other events of the request are stored and readable,
// also when the rejected event comes first; nothing it named is stored. gRPC feeds the same path.
import { create } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import { EventBatchSchema, EventSchema } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { eventually } from '../harness/eventually.js';
import { ndjson } from '../harness/event-builders.js';

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ target: 'all' });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

const addBatch = (body: string) =>
  h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines', 'x-clearml-worker': 'node-7' },
    rawBody: body,
  });

/** Every event of the task as the query API returns them, polled until `count` are visible. */
async function readAll(task: string, count: number): Promise<Array<Record<string, unknown>>> {
  return eventually(
    async () => {
      const r = await h.call('events.get_task_events', { task, batch_size: 10_000 }, { token });
      expect(r.status).toBe(200);
      return r.body.data.events as Array<Record<string, unknown>>;
    },
    (events) => events.length >= count,
    { what: `${count} events of ${task}` },
  );
}

/**
 * Each row: an event a store cannot take, and the reason it gets; one per store that would refuse
 * it (InfluxDB, a Redis stream id, the writer's Lua JSON), each as JSON text only a client sends.
 * Every limit is a row of ingest/events/event-normalizer.test.ts.
 */
const rows: Array<[string, (task: string) => unknown, string]> = [
  [
    'a value of 1e999 (Infinity)',
    (task) =>
      `{"type": "training_stats_scalar", "task": "${task}", "iter": 1, "metric": "bad", "variant": "v", "value": "1e999"}`,
    "Invalid value for field 'value'",
  ],
  [
    'a log timestamp of 1e20 (no Redis stream id)',
    (task) => ({ type: 'log', task, msg: 'bad', timestamp: 1e20 }),
    "Field 'timestamp' out of range (0 to 253402300799999 ms)",
  ],
  [
    'a lone surrogate in a variant',
    (task) =>
      `{"type": "training_stats_scalar", "task": "${task}", "iter": 1, "metric": "bad", "variant": "\\ud800", "value": 1}`,
    "Invalid value for field 'variant'",
  ],
];

describe('per-event limits over HTTP: the rejected event is counted, its siblings are stored', () => {
  it.each(rows)('%s', async (_what, bad, reason) => {
    const task = unique('lim-');
    const badLine = typeof bad(task) === 'string' ? (bad(task) as string) : JSON.stringify(bad(task));
    const good = [
      {
        type: 'training_stats_scalar',
        task,
        iter: 1,
        metric: 'loss',
        variant: 'train',
        value: 0.5,
        timestamp: 1_718_000_000_000,
      },
      { type: 'log', task, msg: 'kept', timestamp: 1_718_000_000_001 },
    ];
    const r = await addBatch(`${badLine}\n${ndjson(good)}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ added: 2, errors: 1, errors_info: { [reason]: 1 } });
    const stored = await readAll(task, 2);
    expect(stored.map((e) => e.type).sort()).toEqual(['log', 'training_stats_scalar']);
    expect(stored.find((e) => e.type === 'log')).toMatchObject({ msg: 'kept', timestamp: 1_718_000_000_001 });
    expect(stored.find((e) => e.type === 'training_stats_scalar')).toMatchObject({
      metric: 'loss',
      value: 0.5,
      iter: 1,
    });
  });

  it('a request whose only event breaks a limit is 400/131 and registers nothing', async () => {
    const task = unique('lim-');
    const r = await addBatch(JSON.stringify({ type: 'log', task, msg: 'x', timestamp: 1e20 }));
    expect(r.status).toBe(400);
    expect(r.body.meta).toMatchObject({
      result_subcode: 131,
      result_msg: "Events not added: Field 'timestamp' out of range (0 to 253402300799999 ms)=1",
    });
    expect(
      await h.service.services.stores.redis.client.exists(redisKeys(h.env.REDIS_KEY_PREFIX!).owner('t', task)),
    ).toBe(0);
  });

  it('a 10 MB id is echoed bounded, and an id with a key separator is refused', async () => {
    const huge = 'x'.repeat(10 * 1024 * 1024);
    const r = await addBatch(
      ndjson([
        { type: 'log', task: huge, msg: 'a' },
        { type: 'log', task: 'a:lm', msg: 'b' },
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.body.meta.result_msg).toBe(
      `Events not added: Invalid task id ${'x'.repeat(256)}…=1, Invalid task id a:lm=1`,
    );
  });

  it('a type nested 10,000 deep and prototype keys are answered, not crashed on', async () => {
    const task = unique('lim-');
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const lines = [
      `{"type": ${deep}, "task": "${task}"}`,
      `{"type": "log", "task": "${task}", "msg": "ok", "__proto__": {"msg": "polluted"}, "constructor": {"prototype": {"x": 1}}}`,
    ].join('\n');
    const r = await addBatch(lines);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ added: 1, errors: 1, errors_info: { 'Invalid event type <list>': 1 } });
    expect(({} as Record<string, unknown>).msg).toBeUndefined();
    const [stored] = await readAll(task, 1);
    expect(stored).toMatchObject({ msg: 'ok' });
    expect(Object.keys(stored!)).not.toContain('constructor');
  });
});

describe('per-event limits over gRPC', () => {
  it('the same reasons for the same events, and the siblings are stored', async () => {
    const task = unique('lim-grpc-');
    const Client = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
    const client = new Client(`127.0.0.1:${h.service.services.boundPorts.get('grpc')}`, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const events = [
      create(EventSchema, {
        type: 'training_stats_scalar',
        task,
        iter: 1n,
        metric: 'bad',
        value: Number.POSITIVE_INFINITY,
      }),
      create(EventSchema, { type: 'log', task, msg: 'bad', timestamp: { case: 'timestampMs', value: 1e20 } }),
      create(EventSchema, { type: 'training_stats_scalar', task, iter: 2n ** 63n - 1n, metric: 'bad', value: 1 }),
      create(EventSchema, { type: 'training_stats_scalar', task, iter: 1n, metric: 'm'.repeat(70_000), value: 1 }),
      create(EventSchema, {
        type: 'training_stats_scalar',
        task,
        iter: 1n,
        metric: 'loss',
        value: 0.5,
        timestamp: { case: 'timestampMs', value: 1_718_000_000_000 },
      }),
    ];
    try {
      const result = await new Promise<{ added: number; errors: number; errorsInfo: Record<string, number> }>(
        (resolve, reject) => {
          const call = (
            client as unknown as {
              AddBatch(
                md: Metadata,
                cb: (e: ServiceError | null, r: never) => void,
              ): { write(m: unknown): void; end(): void };
            }
          ).AddBatch(metadata, (error, response) => (error ? reject(error) : resolve(response)));
          call.write(create(EventBatchSchema, { events }));
          call.end();
        },
      );
      expect(result).toMatchObject({
        added: 1,
        errors: 4,
        errorsInfo: {
          "Invalid value for field 'value'": 1,
          "Field 'timestamp' out of range (0 to 253402300799999 ms)": 1,
          'Iteration number should not exceed 9223372036854775807': 1,
          "Field 'metric' longer than 4096 characters": 1,
        },
      });
    } finally {
      client.close();
    }
    const stored = await readAll(task, 1);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ metric: 'loss', value: 0.5 });
  });

  it('a reason cut inside a surrogate pair is still a valid status message (the process survives)', async () => {
    const task = unique('lim-grpc-');
    const Client = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
    const client = new Client(`127.0.0.1:${h.service.services.boundPorts.get('grpc')}`, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    // 255 characters and an emoji: the echo of the type is cut after 256 UTF-16 units, in the middle of the pair.
    const type = `${'a'.repeat(255)}😀`;
    try {
      const error = await new Promise<ServiceError>((resolve, reject) =>
        (client as unknown as { Add(e: unknown, md: Metadata, cb: (e: ServiceError | null) => void): void }).Add(
          create(EventSchema, { type, task }),
          metadata,
          (e) => (e ? resolve(e) : reject(new Error('expected a refusal'))),
        ),
      );
      expect(error.metadata.get('clearml-result-code')).toEqual(['400']);
      expect(error.details).toBe(`Events not added: Invalid event type ${'a'.repeat(255)}…=1`);
    } finally {
      client.close();
    }
    expect((await addBatch(JSON.stringify({ type: 'log', task, msg: 'still here' }))).status).toBe(200);
  });
});
