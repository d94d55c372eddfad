// events.download_task_log (events.md §6.2) and events.clear_task_log (§6.3) through the real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { expectError, type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { afterBarrier } from '../harness/barrier.js';
import { log, T0 } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

async function withLogs(task: string, events: object[], expected = events.length): Promise<void> {
  await f.add(events);
  await eventually(
    () => f.data('events.get_task_log', { task, batch_size: 1 }),
    (d) => d.total === expected,
  );
}

const download = (query: string, token = f.tokenA) =>
  f.h.call(`events.download_task_log?${query}`, undefined, { token, method: 'GET' });
const taskKey = (task: string, company = f.company('a')) => redisKeys(f.h.env.REDIS_KEY_PREFIX!).task(company, task);

describe('events.download_task_log', () => {
  const task = unique('dl-');
  beforeAll(async () =>
    withLogs(task, [
      log(task, T0 + 2, 'third'),
      log(task, T0, 'first\nsecond line', { level: 'warning' }),
      log(task, T0 + 1, 'middle', { worker: 'w-9' }),
    ]),
  );

  it('json: every event oldest first, without type/task, timestamp renamed asctime, as an attachment', async () => {
    const r = await download(`task=${task}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain/);
    expect(r.headers['content-disposition']).toBe(`attachment; filename=task_${task}.log`);
    expect(r.headers['cache-control']).toBe('no-store, max-age=0');
    const text = r.body as string;
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.msg)).toEqual(['first\nsecond line', 'middle', 'third']);
    expect(lines[1]).toEqual({
      level: 'info',
      msg: 'middle',
      metric: '',
      variant: '',
      worker: 'w-9',
      model_event: false,
      '@timestamp': expect.any(String),
      asctime: T0 + 1,
    });
  });

  it('text with the default format; asctime and timestamp print epoch ms', async () => {
    const r = await download(`line_type=text&task=${task}`);
    expect(r.body).toBe(
      `${T0} test-worker warning first\nsecond line\n${T0 + 1} w-9 info middle\n${T0 + 2} test-worker info third\n`,
    );
  });

  it('text with a custom line_format (braces, trailing newlines removed); line_type is case-insensitive', async () => {
    const r = await f.call('events.download_task_log', {
      task,
      line_type: 'TEXT',
      line_format: '{{{level}}} {timestamp}: {msg}\n\n',
    });
    expect(r.status).toBe(200);
    expect(r.body).toBe(`{warning} ${T0}: first\nsecond line\n{info} ${T0 + 1}: middle\n{info} ${T0 + 2}: third\n`);
    const json = await f.call('events.download_task_log', { task, line_type: 'Json', line_format: '{nope}' });
    expect(json.status).toBe(200);
    expect((json.body as string).split('\n')).toHaveLength(4);
  });

  it('any other line_type means text', async () => {
    const r = await f.call('events.download_task_log', { task, line_type: 'csv', line_format: '{msg}' });
    expect(r.body).toBe('first\nsecond line\nmiddle\nthird\n');
  });

  it('the three line_format errors, enveloped, before any output', async () => {
    expectError(
      await f.call('events.download_task_log', { task, line_type: 'text', line_format: '' }),
      400,
      11,
      'Missing required fields (line_format is required for plain text lines)',
    );
    expectError(
      await f.call('events.download_task_log', { task, line_type: 'text', line_format: '{msg!r}' }),
      400,
      16,
      'Invalid value for fields (invalid line format): error=',
    );
    expectError(
      await f.call('events.download_task_log', { task, line_type: 'text', line_format: '{msg:>20}' }),
      400,
      16,
      'Invalid value for fields (invalid line format)',
    );
    expectError(
      await f.call('events.download_task_log', { task, line_type: 'text', line_format: '{a {' }),
      400,
      16,
      'Invalid value for fields (invalid line format)',
    );
    expectError(
      await f.call('events.download_task_log', { task, line_type: 'text', line_format: '{foo} {msg} {bar}' }),
      400,
      16,
      'Invalid value for fields (undefined placeholders in line format): placeholders=(foo, bar)',
    );
  });

  it('the browser form: GET with query parameters and cookie authentication', async () => {
    const r = await f.h.call(`events.download_task_log?line_type=text&task=${task}`, undefined, {
      method: 'GET',
      headers: { cookie: `clearml_token_basic=${f.tokenA}` },
    });
    expect(r.status).toBe(200);
    expect((r.body as string).split('\n')).toHaveLength(5);
  });

  it('an empty log gives an empty body; unknown or foreign tasks are 400/101', async () => {
    const empty = unique('dl-');
    await f.add([{ type: 'training_stats_scalar', task: empty, iter: 1, metric: 'm', variant: 'v', value: 1 }]);
    const r = await download(`task=${empty}`);
    expect(r.status).toBe(200);
    expect(r.body).toBe('');
    expectError(await download(`task=${unique('nope-')}`), 400, 101, 'Invalid task id');
    expectError(await download(`task=${task}`, f.tokenB), 400, 101, 'Invalid task id');
  });

  it('streams a large log completely', async () => {
    const big = unique('dl-');
    const n = 12_000;
    await withLogs(
      big,
      Array.from({ length: n }, (_, i) => log(big, T0 + i, `line ${i}`)),
      10_000,
    );
    await eventually(
      () => download(`line_type=text&line_format={msg}&task=${big}`),
      (r) => (r.body as string).split('\n').length === n + 1,
    );
    const lines = ((await download(`line_type=text&line_format={msg}&task=${big}`)).body as string).split('\n');
    expect(lines).toHaveLength(n + 1);
    expect(lines[0]).toBe('line 0');
    expect(lines[n - 1]).toBe(`line ${n - 1}`);
  });
});

describe('events.clear_task_log', () => {
  it('deletes every log event of the task, and nothing else', async () => {
    const task = unique('clr-');
    await f.add([{ type: 'training_stats_scalar', task, iter: 1, metric: 'm', variant: 'v', value: 1 }]);
    await withLogs(task, [log(task, T0, 'a'), log(task, T0 + 1, 'b'), log(task, T0 + 2, 'c')]);
    expect(await f.data('events.clear_task_log', { task })).toEqual({ deleted: 3 });
    expect(await f.data('events.get_task_log', { task })).toEqual({ events: [], returned: 0, total: 0 });
    expect(await f.data('events.clear_task_log', { task })).toEqual({ deleted: 0 });
  });

  it('covers log events acknowledged but not yet stored', async () => {
    const task = unique('clr-');
    await f.add(Array.from({ length: 50 }, (_, i) => log(task, T0 + i, `l${i}`)));
    expect(await f.data('events.clear_task_log', { task })).toEqual({ deleted: 50 });
    // The clear runs in stream order after the 50 lines: once a line written after it is stored, none of them came back.
    const after = await afterBarrier(
      () => f.add([log(task, T0 + 100, 'sentinel')]),
      () => f.data('events.get_task_log', { task }),
      (d) => d.total > 0,
    );
    expect(after.events.map((e: { msg: string }) => e.msg)).toEqual(['sentinel']);
    expect(after.total).toBe(1);
  });

  it('threshold_sec keeps the newer records (relative to the request time)', async () => {
    const task = unique('clr-');
    const now = Date.now();
    await withLogs(task, [
      log(task, now - 7_200_000, 'two hours old'),
      log(task, now - 1_000, 'fresh'),
      log(task, now - 4_000_000, 'older'),
    ]);
    expect(await f.data('events.clear_task_log', { task, threshold_sec: 3600 })).toEqual({ deleted: 2 });
    expect((await f.data('events.get_task_log', { task })).events.map((e: { msg: string }) => e.msg)).toEqual([
      'fresh',
    ]);
  });

  it('include_metrics and exclude_metrics', async () => {
    const task = unique('clr-');
    await withLogs(task, [
      log(task, T0, 'plain'),
      log(task, T0 + 1, 'a1', { metric: 'a' }),
      log(task, T0 + 2, 'b1', { metric: 'b' }),
      log(task, T0 + 3, 'a2', { metric: 'a' }),
      log(task, T0 + 4, 'c1', { metric: 'c' }),
    ]);
    expect(
      await f.data('events.clear_task_log', { task, include_metrics: ['a', 'b'], exclude_metrics: ['b'] }),
    ).toEqual({ deleted: 2 });
    expect(await f.data('events.clear_task_log', { task, exclude_metrics: ['c'] })).toEqual({ deleted: 2 });
    expect((await f.data('events.get_task_log', { task })).events.map((e: { msg: string }) => e.msg)).toEqual(['c1']);
  });

  it('a locked task needs allow_locked', async () => {
    const task = unique('clr-');
    await withLogs(task, [log(task, T0, 'x')]);
    await f.redis.hSet(taskKey(task), 'status', 'published');
    expectError(
      await f.call('events.clear_task_log', { task }),
      400,
      101,
      `Cannot update events for a published task: company=${f.company('a')}, id=${task}`,
    );
    expect(await f.data('events.clear_task_log', { task, allow_locked: true })).toEqual({ deleted: 1 });
  });

  it('errors: unknown, foreign and public tasks; negative threshold', async () => {
    const unknown = unique('nope-');
    expectError(
      await f.call('events.clear_task_log', { task: unknown }),
      400,
      101,
      `Invalid task id: id=${unknown}, company=${f.company('a')}`,
    );
    const task = unique('clr-');
    await f.add([log(task, T0, 'x')]);
    expectError(
      await f.call('events.clear_task_log', { task }, f.tokenB),
      400,
      101,
      `Invalid task id: id=${task}, company=${f.company('b')}`,
    );
    expectError(
      await f.call('events.clear_task_log', { task, threshold_sec: -1 }),
      400,
      12,
      "Validation error ('-1' is lower than minimum ('0').)",
    );
    const pub = unique('pub-');
    await f.redis.hSet(taskKey(pub, ''), { id: pub, company: '', name: pub, status: 'in_progress' });
    expectError(
      await f.call('events.clear_task_log', { task: pub }),
      403,
      21,
      `Forbidden (modification not allowed) (cannot modify public task(s), ids=('${pub}',))`,
    );
  });
});
