// events.md §1.4, §1.5, §2: events written through the real ingest (HTTP and gRPC) land in the
// stores in their stored form, read straight from InfluxDB and Redis; partial failures keep the
// good events; re-reports overwrite; both transports store identical results.
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import { EventBatchSchema, type EventSchema } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { encodeTagValue, influxQlString, MEASUREMENT } from '../../shared/events/storage-layout.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { decodeInfluxRows, decodeLogEntry, type StoredEvent } from '../../query/events/store/stored-events.js';
import { withPlotBodies } from '../../query/events/store/plot-bodies.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';
import { afterBarrier } from '../harness/barrier.js';
import { ndjson } from '../harness/event-builders.js';

let h: Harness;
let token: string;
let influx: InfluxStore;

beforeAll(async () => {
  h = await startHarness({ target: 'all', env: { PLOT_COMPRESSION_THRESHOLD: '100000' } });
  token = await h.login(h.credentials.a);
  influx = new InfluxStore({ url: h.env.INFLUX_URL!, database: h.env.INFLUX_DB! });
});
afterAll(() => h?.stop());

const addBatch = (events: unknown[]) =>
  h.call('v2.23/events.add_batch', undefined, {
    token,
    method: 'GET',
    headers: { 'content-type': 'application/json-lines', 'x-clearml-worker': 'node-7' },
    rawBody: ndjson(events),
  });

/** Every stored event of an entity, from every InfluxDB measurement and its log stream segments. */
async function storedEvents(entity: string, namespace: 't' | 'm' = 't'): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for (const measurement of Object.values(MEASUREMENT)) {
    const results = await influx.query(
      `SELECT * FROM "${measurement}" WHERE "e"=${influxQlString(encodeTagValue(entity))} AND "n"='${namespace}'`,
    );
    for (const series of results[0]?.series ?? [])
      out.push(...decodeInfluxRows(series, measurement).map((e) => e.event));
  }
  // A plot's body is a point of its own (docs/storage.md).
  await withPlotBodies(influx, h.credentials.a.company, namespace, out);
  if (namespace === 't') {
    const keys = redisKeys(h.env.REDIS_KEY_PREFIX!);
    const segments = Number((await h.service.services.stores.redis.client.get(keys.logSegmentCount(entity))) ?? 1);
    for (let n = 0; n < segments; n++) {
      for (const entry of await h.service.services.stores.redis.client.xRange(keys.logSegment(entity, n), '-', '+')) {
        out.push(decodeLogEntry(entity, entry.id, entry.message.d!).event);
      }
    }
  }
  return out;
}

/**
 * Every field of every event is there. InfluxDB 1.x applies a written point to its cache one
 * series+field key at a time (tsm1 Cache.WriteMulti), so a read racing the write can see some
 * fields of a point and not yet others (a scalar with `value: null`): a count alone does not
 * say the events are whole.
 */
const whole = (events: StoredEvent[]) => events.every((e) => Object.values(e).every((v) => v !== null));

/** Stored events without what legitimately differs between two writes of the same events. */
const comparable = (events: StoredEvent[]) =>
  events
    .map(({ task: _task, '@timestamp': _at, ...rest }) => rest)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

function sampleEvents(task: string) {
  const bigPlot = JSON.stringify({
    data: [{ x: Array.from({ length: 60_000 }, (_, i) => i % 97), type: 'scatter' }],
    layout: { images: [{ source: 'https://files.example.com/a.png' }] },
  });
  return [
    {
      type: 'training_stats_scalar',
      task,
      iter: 120,
      metric: 'loss',
      variant: 'train',
      value: 0.4132,
      timestamp: 1718000000123,
    },
    {
      type: 'training_stats_scalar',
      task,
      iter: -2147483648,
      metric: 'Summary',
      variant: 'accuracy',
      value: 0.93,
      timestamp: 1718000000200,
    },
    { type: 'training_stats_scalar', task, metric: 'no iter', variant: 'v', value: '7.5', timestamp: 1718000000300 },
    {
      type: 'training_stats_vector',
      task,
      iter: 3,
      metric: 'weights',
      variant: 'layer1',
      values: [0.1, 0.5, 0.2],
      timestamp: 1718000000500,
    },
    {
      type: 'training_debug_image',
      task,
      iter: 120,
      metric: 'samples',
      variant: 'input',
      key: 'k/1.jpeg',
      url: 'https://files.example.com/k/1.jpeg',
      timestamp: 1718000001000,
    },
    {
      type: 'training_debug_image',
      task,
      iter: 120,
      metric: 'samples',
      variant: 'input',
      key: 'k/2.jpeg',
      url: 'https://files.example.com/k/2.jpeg',
      timestamp: 1718000001001,
    },
    {
      type: 'plot',
      task,
      iter: 0,
      metric: 'roc',
      variant: 'class1',
      plot_str: '{"data": [], "layout": {}}',
      timestamp: 1718000002000,
    },
    { type: 'plot', task, iter: 1, metric: 'big', variant: 'v', plot_str: bigPlot, timestamp: 1718000002100 },
    { type: 'log', task, level: 'info', msg: 'epoch 3 done\nval acc 0.91', timestamp: 1718000003000 },
    { type: 'log', task, level: 'warning', msg: 'same ms', timestamp: 1718000003000 },
  ];
}

describe('every event type round-trips into the stores', () => {
  it('stores the normalised events of events.md §1.4', async () => {
    const task = unique('task-');
    const events = sampleEvents(task);
    expect((await addBatch(events)).body.data).toEqual({ added: events.length, errors: 0, errors_info: {} });
    const stored = await eventually(
      () => storedEvents(task),
      (s) => s.length === events.length && whole(s),
      { what: 'all events' },
    );
    const byKey = (type: string, metric: string) => stored.filter((e) => e.type === type && e.metric === metric);
    const common = { task, worker: 'node-7', model_event: false };
    expect(byKey('training_stats_scalar', 'loss')).toEqual([
      {
        ...common,
        type: 'training_stats_scalar',
        iter: 120,
        metric: 'loss',
        variant: 'train',
        value: 0.4132,
        timestamp: 1718000000123,
        '@timestamp': expect.stringMatching(/Z$/),
      },
    ]);
    expect(byKey('training_stats_scalar', 'Summary')[0]).toMatchObject({ iter: -2147483648, value: 0.93 });
    expect(byKey('training_stats_scalar', 'no iter')[0]).not.toHaveProperty('iter');
    expect(byKey('training_stats_scalar', 'no iter')[0]).toMatchObject({ value: 7.5 });
    expect(byKey('training_stats_vector', 'weights')[0]).toMatchObject({ ...common, iter: 3, value: [0.1, 0.5, 0.2] });
    expect(
      byKey('training_debug_image', 'samples')
        .map((e) => e.key)
        .sort(),
    ).toEqual(['k/1.jpeg', 'k/2.jpeg']);
    expect(byKey('plot', 'roc')[0]).toMatchObject({ plot_str: '{"data": [], "layout": {}}', plot_len: 26, iter: 0 });
    const big = byKey('plot', 'big')[0]!;
    expect(big.plot_str).toBe(events[7]!.plot_str);
    expect(big.plot_len).toBe((events[7]!.plot_str as string).length);
    expect(big.source_urls).toEqual(['https://files.example.com/a.png']);
    expect(big).not.toHaveProperty('valid_plot');
    const logs = stored.filter((e) => e.type === 'log');
    expect(logs.map((e) => e.msg)).toEqual(['epoch 3 done\nval acc 0.91', 'same ms']);
    expect(logs[0]).toEqual({
      ...common,
      type: 'log',
      level: 'info',
      msg: 'epoch 3 done\nval acc 0.91',
      metric: '',
      variant: '',
      timestamp: 1718000003000,
      '@timestamp': expect.any(String),
    });
  });

  it('keeps model events apart from task events of the same id string', async () => {
    const id = unique('same-');
    await addBatch([{ type: 'training_stats_scalar', task: id, iter: 1, metric: 'm', variant: 'v', value: 1 }]);
    await addBatch([
      {
        type: 'training_stats_scalar',
        task: 'x',
        model: id,
        model_event: true,
        iter: 1,
        metric: 'm',
        variant: 'v',
        value: 2,
      },
    ]);
    const asTask = await eventually(
      () => storedEvents(id, 't'),
      (s) => s.length === 1 && whole(s),
      { what: 'task event' },
    );
    const asModel = await eventually(
      () => storedEvents(id, 'm'),
      (s) => s.length === 1 && whole(s),
      { what: 'model event' },
    );
    expect(asTask[0]).toMatchObject({ value: 1, model_event: false });
    expect(asModel[0]).toMatchObject({ value: 2, model_event: true, task: id });
  });

  it('stores the accepted events of a partially rejected batch, and only those', async () => {
    const task = unique('task-');
    const r = await addBatch([
      { type: 'training_stats_scalar', task, iter: 1, metric: 'm', variant: 'v', value: 1 },
      { type: 'training_stats_scalar', task, iter: 2, metric: 'm', variant: 'v' },
      { type: 'nope', task },
      { type: 'training_stats_scalar', task, iter: 3, metric: 'm', variant: 'v', value: 3 },
    ]);
    expect(r.body.data).toMatchObject({ added: 2, errors: 2 });
    // A request after the refused lines, on the same task: once its event is stored, the refused ones would be too.
    const stored = await afterBarrier(
      () => addBatch([{ type: 'training_stats_scalar', task, iter: 99, metric: 'sentinel', variant: 'v', value: 0 }]),
      () => storedEvents(task),
      (s) => s.some((e) => e.metric === 'sentinel'),
    );
    const accepted = stored.filter((e) => e.metric !== 'sentinel');
    expect(accepted.map((e) => e.iter).sort()).toEqual([1, 3]);
    expect(accepted).toHaveLength(2);
  });

  it('re-reporting an identity replaces it: the later line and the later request win', async () => {
    const task = unique('task-');
    const s = (value: number, timestamp: number) => ({
      type: 'training_stats_scalar',
      task,
      iter: 5,
      metric: 'm',
      variant: 'v',
      value,
      timestamp,
    });
    await addBatch([s(1, 100), s(2, 200)]);
    await eventually(
      () => storedEvents(task),
      (e) => e.length === 1 && e[0]!.value === 2,
      { what: 'within-request overwrite' },
    );
    await addBatch([s(3, 50)]);
    const final = await eventually(
      () => storedEvents(task),
      (e) => e.length === 1 && e[0]!.value === 3,
      { what: 'cross-request overwrite' },
    );
    expect(final[0]).toMatchObject({ value: 3, timestamp: 50 });
  });

  it('a re-reported plot without image sources loses the earlier ones (replaced completely)', async () => {
    const task = unique('task-');
    const plot = (plot_str: string) => ({ type: 'plot', task, iter: 1, metric: 'm', variant: 'v', plot_str });
    await addBatch([plot('{"layout": {"images": [{"source": "https://x.example/a.png"}]}}')]);
    await eventually(
      () => storedEvents(task),
      (e) => e.length === 1 && Array.isArray(e[0]!.source_urls),
      { what: 'first plot' },
    );
    await addBatch([plot('{"data": []}')]);
    const final = await eventually(
      () => storedEvents(task),
      (e) => e[0]?.plot_str === '{"data": []}',
      { what: 'replacement' },
    );
    expect(final[0]).not.toHaveProperty('source_urls');
  });
});

describe('entity summaries (events.md §1.11)', () => {
  it('applies the summary of one request touching thousands of series of one task', async () => {
    const task = unique('wide-');
    const series = 5000;
    const events = Array.from({ length: series }, (_, i) => ({
      type: 'training_stats_scalar',
      task,
      iter: 1,
      metric: `m${i % 50}`,
      variant: `v${i}`,
      value: i,
    }));
    expect((await addBatch(events)).body.data.added).toBe(series);
    const keys = redisKeys(h.env.REDIS_KEY_PREFIX!);
    const redis = h.service.services.stores.redis.client;
    await eventually(
      () => redis.hLen(keys.lastMetrics(h.credentials.a.company, 't', task)),
      (n) => n === series,
      { what: 'last_metrics of every series' },
    );
    expect(await redis.sCard(keys.metricListing(h.credentials.a.company, 't', task))).toBe(series);
    expect(
      JSON.parse(
        (await redis.hGet(keys.lastMetrics(h.credentials.a.company, 't', task), JSON.stringify(['m7', 'v4957'])))!,
      ),
    ).toMatchObject({ value: 4957, count: 1, mean_value: 4957 });
    // The partition keeps flowing after it.
    const after = unique('after-');
    await addBatch([{ type: 'log', task: after, msg: 'next' }]);
    await eventually(
      () => storedEvents(after),
      (e) => e.length === 1,
      { what: 'an event after the wide request' },
    );
  });
});

describe('HTTP and gRPC', () => {
  type EventInit = MessageInitShape<typeof EventSchema>;
  const toProto = (event: Record<string, unknown>): EventInit => {
    const { iter, timestamp, values, ...rest } = event as {
      iter?: number;
      timestamp?: number;
      values?: number[];
    } & Record<string, unknown>;
    const camel = Object.fromEntries(
      Object.entries(rest).map(([k, v]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), v]),
    );
    return {
      ...(camel as EventInit),
      ...(iter === undefined ? {} : { iter: BigInt(iter) }),
      ...(timestamp === undefined ? {} : { timestamp: { case: 'timestampMs' as const, value: timestamp } }),
      ...(values === undefined ? {} : { values, valuesPresent: true }),
      ...(typeof rest.value === 'string' ? { value: Number(rest.value) } : {}),
    } as EventInit;
  };

  it('store identical results for the same events', async () => {
    const viaHttp = unique('http-');
    const viaGrpc = unique('grpc-');
    expect((await addBatch(sampleEvents(viaHttp))).status).toBe(200);

    const Client = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
    const client = new Client(`127.0.0.1:${h.service.services.boundPorts.get('grpc')}`, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    metadata.set('x-clearml-worker', 'node-7');
    const result = await new Promise<unknown>((resolve, reject) => {
      const call = (
        client as unknown as {
          AddBatch(md: Metadata, cb: (e: Error | null, r: unknown) => void): { write(m: unknown): void; end(): void };
        }
      ).AddBatch(metadata, (error, response) => (error ? reject(error) : resolve(response)));
      call.write(create(EventBatchSchema, { events: sampleEvents(viaGrpc).map(toProto) as never }));
      call.end();
    });
    client.close();
    expect(result).toMatchObject({ added: sampleEvents(viaGrpc).length, errors: 0 });

    const a = await eventually(
      () => storedEvents(viaHttp),
      (s) => s.length === 10 && whole(s),
      { what: 'http events' },
    );
    const b = await eventually(
      () => storedEvents(viaGrpc),
      (s) => s.length === 10 && whole(s),
      { what: 'grpc events' },
    );
    expect(comparable(b)).toEqual(comparable(a));
  });
});
