// events.delete_for_task, delete_for_model, clear_scroll (events.md §9): synchronous deletions through the
// writer (stream order), their refusals, and navigation-state removal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendControl } from '../../query/events/store/control-requests.js';
import { QueryDeps } from '../../query/query-deps.js';
import { isApiError } from '../../shared/errors/error-catalogue.js';
import { startHarness } from '../harness/service-harness.js';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { afterBarrier } from '../harness/barrier.js';

let r: ServiceFixture;
let companyA: string;

beforeAll(async () => {
  r = await startServiceFixture();
  companyA = r.h.credentials.a.company;
}, 60_000);
afterAll(async () => r?.stop());

const total = async (task: string, extra: object = {}) =>
  (await r.data('events.get_task_events', { task, ...extra })).total as number;

describe('events.delete_for_task', () => {
  it('deletes every event type of the task, leaves the model of the same id and the registration', async () => {
    const task = unique('del-');
    await r.add([
      scalar(task, 'loss', 'a', 0, 1),
      scalar(task, 'loss', 'a', 1, 2),
      scalar(task, 'loss', 'a', undefined, 3),
      { type: 'plot', task, iter: 0, metric: 'p', variant: 'v', plot_str: '{}' },
      { type: 'training_debug_image', task, iter: 0, metric: 'i', variant: 'v', url: 'http://x' },
      { type: 'log', task, msg: 'one' },
      { type: 'log', task, msg: 'two' },
    ]);
    await r.add([scalar(task, 'loss', 'a', 0, 9, { model_event: true })]);
    await untilCount(r, task, 7);
    await untilCount(r, task, 1, { model_events: true });
    const d = await r.data('events.delete_for_task', { task });
    expect(d).toEqual({ deleted: 7 });
    expect(await total(task)).toBe(0);
    expect((await r.data('events.get_task_metrics', { tasks: [task] })).metrics).toEqual([{ task, metrics: [] }]);
    expect(await total(task, { model_events: true })).toBe(1);
    const again = await r.data('events.delete_for_task', { task });
    expect(again).toEqual({ deleted: 0 });
  });

  it('also deletes events acknowledged just before, which never reappear; later events are kept', async () => {
    const task = unique('race-');
    await r.add(Array.from({ length: 5000 }, (_, i) => scalar(task, 'm', 'v', i, i)));
    await r.add([{ type: 'log', task, msg: 'last words' }]);
    // No waiting: the events may not be stored yet.
    const d = await r.data('events.delete_for_task', { task });
    expect(d.deleted).toBe(5001);
    expect(await total(task)).toBe(0);
    // The deletion runs in stream order after the 5001 events: once an event written after it is stored, none of them came back.
    const after = await afterBarrier(
      () => r.add([scalar(task, 'sentinel', 'v', 1, 1)]),
      () => r.data('events.get_task_events', { task }),
      (d) => d.total > 0,
    );
    expect(after.events.map((e: { metric: string }) => e.metric)).toEqual(['sentinel']);
    expect(after.total).toBe(1);
  });

  it('refuses a published task without allow_locked, with the contract message', async () => {
    const task = unique('locked-');
    await r.add([scalar(task, 'm', 'v', 0, 0)]);
    await untilCount(r, task, 1);
    await r.redis.hSet(r.keys.task(companyA, task), 'status', 'published');
    const res = await r.call('events.delete_for_task', { task });
    expect(res.status).toBe(400);
    expect(res.body.meta).toMatchObject({
      result_code: 400,
      result_subcode: 101,
      result_msg: `Cannot update events for a published task: company=${companyA}, id=${task}`,
    });
    expect(await total(task)).toBe(1);
    expect(await r.data('events.delete_for_task', { task, allow_locked: true })).toEqual({ deleted: 1 });
  });

  it('refuses unknown, foreign and public tasks', async () => {
    const unknown = await r.call('events.delete_for_task', { task: 'no-such-task' });
    expect(unknown.body.meta).toMatchObject({
      result_subcode: 101,
      result_msg: `Invalid task id: id=no-such-task, company=${companyA}`,
    });
    const foreign = unique('foreign-');
    await r.add([scalar(foreign, 'm', 'v', 0, 0)], r.tokenB);
    const res = await r.call('events.delete_for_task', { task: foreign });
    expect(res.body.meta.result_msg).toBe(`Invalid task id: id=${foreign}, company=${companyA}`);
    const publicTask = unique('public-');
    await r.redis.hSet(r.keys.task('', publicTask), {
      id: publicTask,
      company: '',
      name: publicTask,
      status: 'completed',
    });
    const pub = await r.call('events.delete_for_task', { task: publicTask });
    expect(pub.status).toBe(403);
    expect(pub.body.meta).toMatchObject({
      result_subcode: 21,
      result_msg: `Forbidden (modification not allowed) (cannot modify public task(s), ids=('${publicTask}',))`,
    });
    const missing = await r.call('events.delete_for_task', {});
    expect(missing.body.meta.result_msg).toBe("Validation error (error for field 'task'. field is required!)");
  });
});

describe('an empty task', () => {
  it('answers every scalar-side read with its empty form once the events are deleted', async () => {
    const task = unique('emptied-');
    await r.add([
      scalar(task, 'loss', 'a', 1, 1),
      scalar(task, 'Summary', 's', -2147483648, 1),
      { type: 'training_stats_vector', task, iter: 1, metric: 'w', variant: 'l', values: [1] },
    ]);
    await untilCount(r, task, 3);
    expect(await r.data('events.delete_for_task', { task })).toEqual({ deleted: 3 });
    expect((await r.data('events.get_task_metrics', { tasks: [task] })).metrics).toEqual([{ task, metrics: [] }]);
    expect(await r.data('events.get_multi_task_metrics', { tasks: [task] })).toEqual({ metrics: [] });
    expect(await r.data('events.get_scalar_metrics_and_variants', { task })).toEqual({ metrics: {} });
    expect(await r.data('events.scalar_metrics_iter_histogram', { task })).toEqual({});
    expect(await r.data('events.multi_task_scalar_metrics_iter_histogram', { tasks: [task] })).toEqual({ metrics: {} });
    expect(
      await r.data('events.scalar_metrics_iter_raw', { task, metric: { metric: 'loss' }, count_total: true }),
    ).toMatchObject({ returned: 0, total: 0, variants: {} });
    expect(await r.data('events.get_scalar_metric_data', { task, metric: 'loss' })).toMatchObject({
      events: [],
      returned: 0,
      total: 0,
    });
    expect(await r.data('events.get_task_latest_scalar_values', { task })).toEqual({
      metrics: [],
      last_iter: 0,
      name: task,
      status: 'in_progress',
      last_timestamp: 0,
    });
    expect(await r.data('events.get_task_single_value_metrics', { tasks: [task] })).toEqual({ tasks: [] });
    expect(await r.data('events.vector_metrics_iter_histogram', { task, metric: 'w', variant: 'l' })).toEqual({
      metric: 'w',
      variant: 'l',
      vectors: [],
      iterations: [],
    });
    expect(await r.data('events.get_task_events', { task })).toMatchObject({ returned: 0, total: 0, events: [] });
  });
});

describe('events.delete_for_model', () => {
  it('deletes the model events only', async () => {
    const id = unique('model-');
    await r.add([scalar(id, 'm', 'v', 0, 0, { model_event: true }), scalar(id, 'm', 'v', 1, 1, { model_event: true })]);
    await r.add([scalar(id, 'm', 'v', 0, 0)]);
    await untilCount(r, id, 2, { model_events: true });
    await untilCount(r, id, 1);
    expect(await r.data('events.delete_for_model', { model: id })).toEqual({ deleted: 2 });
    expect(await total(id, { model_events: true })).toBe(0);
    expect(await total(id)).toBe(1);
  });

  it('refuses unknown and published models', async () => {
    const unknown = await r.call('events.delete_for_model', { model: 'no-such-model' });
    expect(unknown.body.meta).toMatchObject({
      result_subcode: 201,
      result_msg: 'Invalid model id: ids=(no-such-model)',
    });
    const id = unique('ready-');
    await r.add([scalar(id, 'm', 'v', 0, 0, { model_event: true })]);
    await r.redis.hSet(r.keys.model(companyA, id), 'ready', '1');
    const res = await r.call('events.delete_for_model', { model: id });
    expect(res.body.meta).toMatchObject({
      result_subcode: 201,
      result_msg: `Cannot update events for a published model: company=${companyA}, id=${id}`,
    });
    expect(await r.data('events.delete_for_model', { model: id, allow_locked: true })).toEqual({ deleted: 1 });
  });
});

describe('events.clear_scroll', () => {
  it("removes this company's navigation state only and always answers {}", async () => {
    const prefix = r.h.config.REDIS_KEY_PREFIX;
    const mine = redisKeys(prefix).navigation(companyA, 'state-1');
    const theirs = redisKeys(prefix).navigation(r.h.credentials.b.company, 'state-1');
    await r.redis.set(mine, '{}');
    await r.redis.set(theirs, '{}');
    expect(await r.data('events.clear_scroll', { scroll_id: 'state-1' })).toEqual({});
    expect(await r.redis.exists(mine)).toBe(0);
    expect(await r.redis.exists(theirs)).toBe(1);
    expect(await r.data('events.clear_scroll', {})).toEqual({});
    expect(await r.data('events.clear_scroll', { scroll_id: 'unknown' })).toEqual({});
  });

  it('leaves signed cursors usable', async () => {
    const task = unique('cursor-');
    await r.add([scalar(task, 'm', 'v', 0, 0), scalar(task, 'm', 'v', 1, 1)]);
    await untilCount(r, task, 2);
    const first = await r.data('events.get_task_events', { task, batch_size: 1 });
    await r.data('events.clear_scroll', { scroll_id: first.scroll_id });
    expect((await r.data('events.get_task_events', { task, scroll_id: first.scroll_id })).returned).toBe(1);
  });
});

describe('sendControl without a writer', () => {
  it('answers the transient 503 when the deletion is not confirmed in time', async () => {
    const alone = await startHarness({ target: 'query' });
    try {
      const s = alone.service.services;
      const deps = new QueryDeps(s.config, s.logger, s.stores, s.signingSecret);
      const error = await sendControl(
        deps,
        { op: 'delete_entity', c: 'co', n: 't', e: 'x', id: unique('ctl-') },
        { timeoutMs: 1500 },
      ).catch((e: unknown) => e);
      expect(isApiError(error)).toBe(true);
      expect((error as { httpStatus: number }).httpStatus).toBe(503);
      expect((error as Error).message).toBe(
        'Events could not be persisted, retry later (the deletion was not confirmed within 1.5 s)',
      );
    } finally {
      await alone.stop();
    }
  });
});
