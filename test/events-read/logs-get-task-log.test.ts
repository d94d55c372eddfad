// events.get_task_log (events.md §6.1) through the real pipeline, and its search extension (docs/events-read.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { expectError, type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { log, T0 } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

const msgs = (data: { events: Array<{ msg: string }> }) => data.events.map((e) => e.msg);

/** Writes the events and waits until get_task_log sees `expected` of them in total. */
async function withLogs(task: string, events: object[], expected = events.length): Promise<void> {
  await f.add(events);
  await eventually(
    () => f.data('events.get_task_log', { task, batch_size: 1 }),
    (d) => d.total === Math.min(expected, 10_000),
  );
}

describe('the contract example: ten logs t0..t9, batch_size 5', () => {
  const task = unique('log-');
  const t = (i: number) => T0 + i * 1000;
  beforeAll(async () =>
    withLogs(
      task,
      Array.from({ length: 10 }, (_, i) => log(task, t(i), `t${i}`)),
    ),
  );

  it('{} returns t9..t5, newest first, total 10', async () => {
    const d = await f.data('events.get_task_log', { task, batch_size: 5 });
    expect(msgs(d)).toEqual(['t9', 't8', 't7', 't6', 't5']);
    expect(d.returned).toBe(5);
    expect(d.total).toBe(10);
  });

  it('from_timestamp t5 returns t4..t0; from the oldest, nothing', async () => {
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 5, from_timestamp: t(5) }))).toEqual([
      't4',
      't3',
      't2',
      't1',
      't0',
    ]);
    const end = await f.data('events.get_task_log', { task, batch_size: 5, from_timestamp: t(0) });
    expect(end).toEqual({ events: [], returned: 0, total: 10 });
  });

  it('navigate_earlier false from t4 returns t5..t9; from the newest, nothing', async () => {
    expect(
      msgs(await f.data('events.get_task_log', { task, batch_size: 5, navigate_earlier: false, from_timestamp: t(4) })),
    ).toEqual(['t5', 't6', 't7', 't8', 't9']);
    const end = await f.data('events.get_task_log', {
      task,
      batch_size: 5,
      navigate_earlier: false,
      from_timestamp: t(9),
    });
    expect(end.events).toEqual([]);
  });

  it('navigate_earlier false without from_timestamp starts at the oldest', async () => {
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 3, navigate_earlier: false }))).toEqual([
      't0',
      't1',
      't2',
    ]);
  });

  it('order asc returns the newest five oldest first; order desc going later reverses', async () => {
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 5, order: 'asc' }))).toEqual([
      't5',
      't6',
      't7',
      't8',
      't9',
    ]);
    expect(
      msgs(await f.data('events.get_task_log', { task, batch_size: 5, navigate_earlier: false, order: 'desc' })),
    ).toEqual(['t4', 't3', 't2', 't1', 't0']);
  });

  it('from_timestamp 0 or null counts as absent', async () => {
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 2, from_timestamp: 0 }))).toEqual(['t9', 't8']);
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 2, from_timestamp: null }))).toEqual([
      't9',
      't8',
    ]);
  });

  it('returns events in their stored form', async () => {
    const [event] = (await f.data('events.get_task_log', { task, batch_size: 1 })).events;
    expect(event).toEqual({
      type: 'log',
      task,
      timestamp: t(9),
      level: 'info',
      msg: 't9',
      metric: '',
      variant: '',
      worker: 'test-worker',
      model_event: false,
      '@timestamp': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });
});

describe('text beyond ASCII', () => {
  it('comes back unchanged from get_task_log and get_task_events (pages splice the stored bytes)', async () => {
    const task = unique('log-utf8-');
    const texts = ['naïve ✓', 'émoji 😀 and 中文', 'quote " backslash \\ tab \t', 'line\nbreak \u2028 sep'];
    await withLogs(
      task,
      texts.map((msg, i) => log(task, T0 + i, msg)),
    );
    expect(msgs(await f.data('events.get_task_log', { task, navigate_earlier: false }))).toEqual(texts);
    const all = await f.data('events.get_task_events', { task, event_type: 'log' });
    expect(all.events.map((e: { msg: string; task: string; type: string }) => [e.type, e.task, e.msg])).toEqual(
      texts.map((msg) => ['log', task, msg]),
    );
  });
});

describe('pages', () => {
  it('never split a millisecond, in either direction', async () => {
    const task = unique('log-');
    // Three lines share the middle millisecond.
    await withLogs(task, [
      log(task, T0, 'a'),
      log(task, T0 + 1, 'b1'),
      log(task, T0 + 1, 'b2'),
      log(task, T0 + 1, 'b3'),
      log(task, T0 + 2, 'c'),
    ]);
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 2 }))).toEqual(['c', 'b3', 'b2', 'b1']);
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 2, navigate_earlier: false }))).toEqual([
      'a',
      'b1',
      'b2',
      'b3',
    ]);
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 2, from_timestamp: T0 + 1 }))).toEqual(['a']);
  });

  it('merge lines that arrived out of timestamp order (several log segments)', async () => {
    const task = unique('log-');
    await withLogs(task, [log(task, T0 + 50, 'late-50'), log(task, T0 + 60, 'late-60')]);
    await withLogs(
      task,
      [log(task, T0 + 10, 'early-10'), log(task, T0 + 55, 'mid-55'), log(task, T0 + 70, 'last-70')],
      5,
    );
    expect(Number(await f.redis.get(redisKeys(f.h.env.REDIS_KEY_PREFIX!).logSegmentCount(task)))).toBeGreaterThan(1);
    const all = await f.data('events.get_task_log', { task, navigate_earlier: false });
    expect(msgs(all)).toEqual(['early-10', 'late-50', 'mid-55', 'late-60', 'last-70']);
    expect(msgs(await f.data('events.get_task_log', { task, batch_size: 2, from_timestamp: T0 + 60 }))).toEqual([
      'mid-55',
      'late-50',
    ]);
  });

  it('an empty task returns nothing, total 0', async () => {
    const task = unique('log-');
    await f.add([{ type: 'training_stats_scalar', task, iter: 0, metric: 'm', variant: 'v', value: 1 }]);
    expect(await f.data('events.get_task_log', { task })).toEqual({ events: [], returned: 0, total: 0 });
  });

  it('cap total at 10000 and batch_size at 10000, whatever from_timestamp', async () => {
    const task = unique('log-');
    const n = 10_050;
    await withLogs(
      task,
      Array.from({ length: n }, (_, i) => log(task, T0 + i, `line ${i}`)),
      n,
    );
    const first = await f.data('events.get_task_log', { task, batch_size: 20_000 });
    expect(first.returned).toBe(10_000);
    expect(first.total).toBe(10_000);
    expect(first.events[0].msg).toBe(`line ${n - 1}`);
    const rest = await f.data('events.get_task_log', {
      task,
      batch_size: 20_000,
      from_timestamp: first.events[9_999].timestamp,
    });
    expect(rest.returned).toBe(50);
    expect(rest.total).toBe(10_000);
    expect(rest.events[49].msg).toBe('line 0');
  });

  it('filter by metrics (total counts the filtered log)', async () => {
    const task = unique('log-');
    await withLogs(task, [
      log(task, T0, 'plain'),
      log(task, T0 + 1, 'tagged-a', { metric: 'stage', variant: 'a' }),
      log(task, T0 + 2, 'tagged-b', { metric: 'stage', variant: 'b' }),
    ]);
    const d = await f.data('events.get_task_log', { task, metrics: [{ metric: 'stage', variants: ['b'] }] });
    expect(msgs(d)).toEqual(['tagged-b']);
    expect(d.total).toBe(1);
    expect(msgs(await f.data('events.get_task_log', { task, metrics: [{ metric: 'stage' }] }))).toEqual([
      'tagged-b',
      'tagged-a',
    ]);
  });
});

describe('errors', () => {
  it("unknown and other companies' tasks: 400/101", async () => {
    const mine = unique('log-');
    await f.add([log(mine, T0, 'x')]);
    expectError(await f.call('events.get_task_log', { task: unique('nope-') }), 400, 101, 'Invalid task id');
    expectError(
      await f.call('events.get_task_log', { task: mine }, f.tokenB),
      400,
      101,
      `Invalid task id: ids=(${mine})`,
    );
  });

  it('validation: batch_size, order, task', async () => {
    const task = unique('log-');
    await f.add([log(task, T0, 'x')]);
    expectError(
      await f.call('events.get_task_log', { task, batch_size: 0 }),
      400,
      12,
      "Validation error ('0' is lower than minimum ('1').)",
    );
    expectError(
      await f.call('events.get_task_log', { task, order: 'up' }),
      400,
      12,
      'Validation error (value is wrong, expected type "logorderenum"',
    );
    expectError(
      await f.call('events.get_task_log', {}),
      400,
      12,
      "Validation error (error for field 'task'. field is required!)",
    );
  });
});

describe('search extension', () => {
  const task = unique('log-');
  beforeAll(async () =>
    withLogs(task, [
      log(task, T0, 'Epoch 1 loss 0.9'),
      log(task, T0 + 1, 'warning: disk almost full'),
      log(task, T0 + 2, 'epoch 2 loss 0.5'),
      log(task, T0 + 3, 'no message field here', { msg: undefined }),
      log(task, T0 + 4, 'EPOCH 3 LOSS 0.2'),
    ]),
  );

  it('substring, case-sensitive by default, over the whole log (total too)', async () => {
    const d = await f.data('events.get_task_log', { task, search: 'epoch' });
    expect(msgs(d)).toEqual(['epoch 2 loss 0.5']);
    expect(d.total).toBe(1);
  });

  it('ignores case on request', async () => {
    const d = await f.data('events.get_task_log', { task, search: 'epoch', search_ignore_case: true, batch_size: 2 });
    expect(msgs(d)).toEqual(['EPOCH 3 LOSS 0.2', 'epoch 2 loss 0.5']);
    expect(d.total).toBe(3);
    const next = await f.data('events.get_task_log', {
      task,
      search: 'epoch',
      search_ignore_case: true,
      batch_size: 2,
      from_timestamp: T0 + 2,
    });
    expect(msgs(next)).toEqual(['Epoch 1 loss 0.9']);
  });

  it('regex (RE2 syntax)', async () => {
    const d = await f.data('events.get_task_log', {
      task,
      search: 'loss 0\\.[25]$',
      search_regex: true,
      navigate_earlier: false,
    });
    expect(msgs(d)).toEqual(['epoch 2 loss 0.5']);
    const ci = await f.data('events.get_task_log', {
      task,
      search: '^epoch \\d',
      search_regex: true,
      search_ignore_case: true,
    });
    expect(ci.total).toBe(3);
  });

  it('a malformed regex is 400/21', async () => {
    expectError(
      await f.call('events.get_task_log', { task, search: 'a(b', search_regex: true }),
      400,
      21,
      'Malformed regular expression: err=',
    );
  });

  it('a catastrophic-backtracking pattern runs in linear time', async () => {
    const evil = unique('log-');
    await withLogs(evil, [log(evil, T0, `${'a'.repeat(50_000)}!`)]);
    const started = Date.now();
    const d = await f.data('events.get_task_log', { task: evil, search: '^(a+)+$', search_regex: true });
    expect(d.events).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('combines with the metrics filter; an empty search is no search', async () => {
    expect((await f.data('events.get_task_log', { task, search: '' })).total).toBe(5);
    expect((await f.data('events.get_task_log', { task, search: 'loss', metrics: [{ metric: 'other' }] })).total).toBe(
      0,
    );
  });
});
