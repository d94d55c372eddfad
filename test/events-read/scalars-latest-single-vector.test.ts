// events.get_task_latest_scalar_values (§4.5), get_task_single_value_metrics (§4.6),
// vector_metrics_iter_histogram (§4.7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAST_SCALAR_AT_FIELD, MAX_ITER_FIELD } from '../../shared/events/storage-layout.js';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const task = unique('latest-');
const second = unique('second-');
const empty = unique('empty-');
const T0 = 1_718_000_000_000;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

beforeAll(async () => {
  r = await startServiceFixture();
  await r.add([
    // 150 values, iterations 0..149, value = -iter (negative and zero values count).
    ...Array.from({ length: 150 }, (_, i) => scalar(task, 'loss', 'train', i, -i, { timestamp: T0 + i })),
    scalar(task, 'loss', 'val', 3, 0.5),
    scalar(task, 'loss', 'val', undefined, 7),
    scalar(task, 'Summary', 'acc', -2147483648, 0.93, { timestamp: T0 + 7 }),
    scalar(task, 'Summary', 'f1', -2147483648, 0.5, { timestamp: T0 + 8 }),
    scalar(task, 'Another', 'z', -2147483648, 1, { timestamp: T0 + 9 }),
    { type: 'training_stats_vector', task, metric: 'weights', variant: 'l1', iter: 2, values: [0.2, 0.4] },
    { type: 'training_stats_vector', task, metric: 'weights', variant: 'l1', iter: 1, values: [0.1, 0.5, 0.2] },
    { type: 'training_stats_vector', task, metric: 'weights', variant: 'l1', values: [9] },
    { type: 'training_debug_image', task, metric: 'img', variant: 'x', iter: 500, url: 'http://x/y.png' },
    { type: 'log', task, msg: 'no iteration' },
    scalar(second, 'Summary', 'acc', -2147483648, 0.7),
    scalar(empty, 'plain', 'v', 1, 1),
  ]);
  await r.add([scalar(task, 'Summary', 'acc', -2147483648, 0.99, { model_event: true })]);
  await untilCount(r, task, 160);
  await untilCount(r, second, 1);
  await untilCount(r, task, 1, { model_events: true });
}, 60_000);
afterAll(async () => r?.stop());

describe('events.get_task_latest_scalar_values', () => {
  it('computes last, last-10 and last-100 means over every value, single values included', async () => {
    const d = await r.data('events.get_task_latest_scalar_values', { task });
    const train = Array.from({ length: 150 }, (_, i) => -(149 - i));
    expect(d.metrics).toEqual([
      { name: 'Another', variants: [{ name: 'z', last_value: 1, last_10_value: 1, last_100_value: 1 }] },
      {
        name: 'Summary',
        variants: [
          { name: 'acc', last_value: 0.93, last_10_value: 0.93, last_100_value: 0.93 },
          { name: 'f1', last_value: 0.5, last_10_value: 0.5, last_100_value: 0.5 },
        ],
      },
      {
        name: 'loss',
        variants: [
          {
            name: 'train',
            last_value: -149,
            last_10_value: mean(train.slice(0, 10)),
            last_100_value: mean(train.slice(0, 100)),
          },
          // The event without iteration ranks after every iteration.
          { name: 'val', last_value: 0.5, last_10_value: 3.75, last_100_value: 3.75 },
        ],
      },
    ]);
    expect(d.last_iter).toBe(500);
    expect(d.name).toBe(task);
    expect(d.status).toBe('in_progress');
    expect(typeof d.last_timestamp).toBe('number');
    expect(Math.abs(d.last_timestamp - Date.now())).toBeLessThan(120_000);
  });

  it('answers zeros and no metrics for a task without scalars', async () => {
    const fresh = unique('logs-only-');
    await r.add([{ type: 'log', task: fresh, msg: 'x' }]);
    const d = await r.data('events.get_task_latest_scalar_values', { task: fresh });
    expect(d).toEqual({ metrics: [], last_iter: 0, name: fresh, status: 'in_progress', last_timestamp: 0 });
  });

  it("keeps last_timestamp at the greatest receive time of the task's scalar events, other event types aside", async () => {
    const t = unique('received-');
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    /** The greatest @timestamp among the task's scalar events, as epoch ms. */
    const greatestReceived = async () => {
      const events = (await r.data('events.get_task_events', { task: t, event_type: 'training_stats_scalar' }))
        .events as Array<{ '@timestamp': string }>;
      return Math.max(...events.map((e) => Date.parse(e['@timestamp'])));
    };
    await r.add([scalar(t, 'loss', 'train', 0, 1), scalar(t, 'loss', 'train', 1, 2)]);
    await untilCount(r, t, 2);
    const first = await greatestReceived();
    expect((await r.data('events.get_task_latest_scalar_values', { task: t })).last_timestamp).toBe(first);
    // Kept on the task record by the writer, so the read need not scan every point for it.
    expect(Number(await r.redis.hGet(r.keys.entity(r.h.credentials.a.company, 't', t), LAST_SCALAR_AT_FIELD))).toBe(
      first,
    );

    await pause();
    await r.add([
      { type: 'log', task: t, msg: 'later' },
      { type: 'plot', task: t, metric: 'p', variant: 'v', iter: 5, plot_str: '{}' },
    ]);
    await untilCount(r, t, 4, { event_type: undefined });
    expect((await r.data('events.get_task_latest_scalar_values', { task: t })).last_timestamp).toBe(first);

    await pause();
    // A late re-report of an old iteration is still a later receive time.
    await r.add([scalar(t, 'loss', 'train', 0, 3)]);
    const overwritten = await r.poll('events.get_task_events', { task: t, event_type: 'training_stats_scalar' }, (d) =>
      d.events.some((e: { value: number }) => e.value === 3),
    );
    const later = Math.max(...overwritten.events.map((e: { '@timestamp': string }) => Date.parse(e['@timestamp'])));
    expect(later).toBeGreaterThan(first);
    await r.poll('events.get_task_latest_scalar_values', { task: t }, (d) => d.last_timestamp === later);

    // Tasks stored before the writer kept the time on the record: read from the points instead.
    await r.redis.hDel(r.keys.entity(r.h.credentials.a.company, 't', t), LAST_SCALAR_AT_FIELD);
    expect((await r.data('events.get_task_latest_scalar_values', { task: t })).last_timestamp).toBe(later);
  });

  it('keeps last_iter at the greatest iteration of every event type, kept on the record at write time', async () => {
    const t = unique('iters-');
    const company = r.h.credentials.a.company;
    const kept = () => r.redis.hGet(r.keys.entity(company, 't', t), MAX_ITER_FIELD);
    const lastIter = async () => (await r.data('events.get_task_latest_scalar_values', { task: t })).last_iter;
    await r.add([
      scalar(t, 'loss', 'train', 3, 1),
      { type: 'training_debug_image', task: t, metric: 'img', variant: 'x', iter: 500, url: 'http://x/500.png' },
      { type: 'plot', task: t, metric: 'p', variant: 'v', iter: 7, plot_str: '{}' },
    ]);
    await untilCount(r, t, 3, { event_type: undefined });
    expect(await kept()).toBe('500');
    expect(await lastIter()).toBe(500);
    // Out of order and re-reported: lower iterations later change nothing, a higher one of any type raises it.
    await r.add([scalar(t, 'loss', 'train', 3, 2), scalar(t, 'loss', 'train', 1, 1)]);
    await r.add([{ type: 'training_stats_vector', task: t, metric: 'w', variant: 'l', iter: 900, values: [1] }]);
    await r.add([scalar(t, ':monitor:machine', 'cpu', 100, 1)]);
    await untilCount(r, t, 6, { event_type: undefined });
    await r.poll('events.get_task_latest_scalar_values', { task: t }, (d) => d.last_iter === 900);
    expect(await kept()).toBe('900');
    // Other entities (another company's task, a model of the same id) leave it alone.
    const foreign = unique('iters-b-');
    await r.add([scalar(foreign, 'loss', 'train', 10_000, 1)], r.tokenB);
    await r.add([scalar(t, 'loss', 'train', 20_000, 1, { model_event: true })]);
    await untilCount(r, t, 1, { model_events: true });
    expect(await lastIter()).toBe(900);

    // Deleting the events: none left, then only what comes after counts.
    await r.data('events.delete_for_task', { task: t });
    expect(await lastIter()).toBe(0);
    await r.add([scalar(t, 'loss', 'train', 4, 1)]);
    await r.poll('events.get_task_latest_scalar_values', { task: t }, (d) => d.last_iter === 4);
    expect(await kept()).toBe('4');

    // Data stored before the writer kept it: read from the points, and not kept from then on.
    await r.redis.hDel(r.keys.entity(company, 't', t), MAX_ITER_FIELD);
    expect(await lastIter()).toBe(4);
    await r.add([scalar(t, 'loss', 'train', 2, 1)]);
    await r.poll('events.get_task_events', { task: t, event_type: 'training_stats_scalar' }, (d) => d.total === 2);
    expect(await kept()).toBeNull();
    expect(await lastIter()).toBe(4);
  }, 60_000);

  it('works on tasks only', async () => {
    const res = await r.call('events.get_task_latest_scalar_values', { task: unique('none-') });
    expect(res.body.meta.result_subcode).toBe(101);
  });
});

describe('events.get_task_single_value_metrics', () => {
  it('lists single values per entity in request order, values by metric then variant', async () => {
    const d = await r.data('events.get_task_single_value_metrics', { tasks: [second, empty, task] });
    expect(d.tasks).toEqual([
      {
        task: second,
        task_name: second,
        values: [{ metric: 'Summary', variant: 'acc', value: 0.7, timestamp: expect.any(Number) }],
      },
      {
        task,
        task_name: task,
        values: [
          { metric: 'Another', variant: 'z', value: 1, timestamp: T0 + 9 },
          { metric: 'Summary', variant: 'acc', value: 0.93, timestamp: T0 + 7 },
          { metric: 'Summary', variant: 'f1', value: 0.5, timestamp: T0 + 8 },
        ],
      },
    ]);
  });

  it('filters by metrics, keeps model values apart, answers {"tasks": []} when none', async () => {
    const d = await r.data('events.get_task_single_value_metrics', {
      task: [task],
      metrics: [{ metric: 'Summary', variants: ['f1'] }],
    });
    expect(d.tasks[0].values).toEqual([{ metric: 'Summary', variant: 'f1', value: 0.5, timestamp: T0 + 8 }]);
    const model = await r.data('events.get_task_single_value_metrics', { tasks: [task], model_events: true });
    expect(model.tasks[0].values).toEqual([
      { metric: 'Summary', variant: 'acc', value: 0.99, timestamp: expect.any(Number) },
    ]);
    expect(await r.data('events.get_task_single_value_metrics', { tasks: [empty] })).toEqual({ tasks: [] });
  });
});

describe('events.vector_metrics_iter_histogram', () => {
  it('answers the vectors with an iteration, ascending', async () => {
    const d = await r.data('events.vector_metrics_iter_histogram', { task, metric: 'weights', variant: 'l1' });
    expect(d).toEqual({
      metric: 'weights',
      variant: 'l1',
      vectors: [
        [0.1, 0.5, 0.2],
        [0.2, 0.4],
      ],
      iterations: [1, 2],
    });
    const none = await r.data('events.vector_metrics_iter_histogram', { task, metric: 'weights', variant: 'nope' });
    expect(none).toEqual({ metric: 'weights', variant: 'nope', vectors: [], iterations: [] });
  });

  it('requires metric and variant', async () => {
    const res = await r.call('events.vector_metrics_iter_histogram', { task, metric: 'weights' });
    expect(res.body.meta.result_msg).toBe("Validation error (error for field 'variant'. field is required!)");
  });
});
