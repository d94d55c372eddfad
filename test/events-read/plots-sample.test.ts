// events.get_plot_sample (events.md §7.4) and events.next_plot_sample (§7.5) through the real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { expectError, type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { plot } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

type Sample = {
  scroll_id: string;
  events: Array<{ iter: number; metric: string; variant: string }>;
  min_iteration: number | null;
  max_iteration: number | null;
};
/** (iteration, metric, variants) of a sample, or null when it is empty. */
const at = (s: Sample) =>
  s.events.length === 0 ? null : [s.events[0]!.iter, s.events[0]!.metric, s.events.map((e) => e.variant).join(',')];
const navKey = (id: string) => redisKeys(f.h.env.REDIS_KEY_PREFIX!).navigation(f.company('a'), id);

describe('the contract example: M1 (v1, v2) and M2 (v3, v4) at iterations 0 and 1', () => {
  const task = unique('ps-');
  beforeAll(async () => {
    await f.add(
      [0, 1].flatMap((i) => [
        plot(task, 'M1', 'v2', i),
        plot(task, 'M1', 'v1', i),
        plot(task, 'M2', 'v3', i),
        plot(task, 'M2', 'v4', i),
      ]),
    );
    await eventually(
      () => f.data('events.get_task_plots', { task, iters: 10 }),
      (d) => d.total === 8,
    );
  });

  it('moves across metrics and iterations', async () => {
    const first: Sample = await f.data('events.get_plot_sample', {
      task,
      metric: 'M1',
      navigate_current_metric: false,
    });
    expect(at(first)).toEqual([1, 'M1', 'v1,v2']);
    expect([first.min_iteration, first.max_iteration]).toEqual([0, 1]);
    const next = async (body: object): Promise<Sample> =>
      f.data('events.next_plot_sample', { task, scroll_id: first.scroll_id, ...body });
    expect(at(await next({ navigate_earlier: false }))).toEqual([1, 'M2', 'v3,v4']);
    expect(at(await next({ navigate_earlier: true }))).toEqual([1, 'M1', 'v1,v2']);
    const earlier = await next({});
    expect(at(earlier)).toEqual([0, 'M2', 'v3,v4']);
    expect([earlier.min_iteration, earlier.max_iteration, earlier.scroll_id]).toEqual([0, 1, first.scroll_id]);
    expect(await next({ next_iteration: true })).toEqual({
      scroll_id: first.scroll_id,
      events: [],
      min_iteration: null,
      max_iteration: null,
    });
    expect(at(await next({ next_iteration: true, navigate_earlier: false }))).toEqual([1, 'M1', 'v1,v2']);
  });

  it('navigate_current_metric stays within the metric; iteration picks the greatest at or below it', async () => {
    const s: Sample = await f.data('events.get_plot_sample', { task, metric: 'M2', iteration: 0 });
    expect(at(s)).toEqual([0, 'M2', 'v3,v4']);
    expect(
      at(await f.data('events.next_plot_sample', { task, scroll_id: s.scroll_id, navigate_earlier: false })),
    ).toEqual([1, 'M2', 'v3,v4']);
    const end: Sample = await f.data('events.next_plot_sample', {
      task,
      scroll_id: s.scroll_id,
      navigate_earlier: false,
    });
    expect(end.events).toEqual([]);
    expect(at(await f.data('events.get_plot_sample', { task, metric: 'M1', iteration: 7 }))).toEqual([
      1,
      'M1',
      'v1,v2',
    ]);
  });

  it('continuing a state of another metric or mode is 400/1104 "do not match"; the same one continues', async () => {
    const s: Sample = await f.data('events.get_plot_sample', { task, metric: 'M1' });
    expectError(
      await f.call('events.get_plot_sample', { task, metric: 'M2', scroll_id: s.scroll_id }),
      400,
      1104,
      `Invalid scroll id (Task and metric stored in the state do not match the passed ones): scroll_id=${s.scroll_id}`,
    );
    expectError(
      await f.call('events.get_plot_sample', {
        task,
        metric: 'M1',
        navigate_current_metric: false,
        scroll_id: s.scroll_id,
      }),
      400,
      1104,
    );
    const again: Sample = await f.data('events.get_plot_sample', {
      task,
      metric: 'M1',
      iteration: 0,
      scroll_id: s.scroll_id,
    });
    expect(again.scroll_id).toBe(s.scroll_id);
    expect(at(again)).toEqual([0, 'M1', 'v1,v2']);
  });

  it('a metric without plots: no events, no range', async () => {
    expect(await f.data('events.get_plot_sample', { task, metric: 'nothing' })).toEqual({
      scroll_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      events: [],
      min_iteration: null,
      max_iteration: null,
    });
  });

  it('refresh recomputes the ranges', async () => {
    const own = unique('ps-');
    await f.add([plot(own, 'M', 'v', 1)]);
    await eventually(
      () => f.data('events.get_task_plots', { task: own }),
      (d) => d.total === 1,
    );
    const s: Sample = await f.data('events.get_plot_sample', { task: own, metric: 'M' });
    await f.add([plot(own, 'M', 'v', 4)]);
    await eventually(
      () => f.data('events.get_task_plots', { task: own }),
      (d) => d.plots[0]?.iter === 4,
    );
    const stale: Sample = await f.data('events.get_plot_sample', { task: own, metric: 'M', scroll_id: s.scroll_id });
    expect([at(stale), stale.max_iteration]).toEqual([[4, 'M', 'v'], 1]);
    const fresh: Sample = await f.data('events.get_plot_sample', {
      task: own,
      metric: 'M',
      scroll_id: s.scroll_id,
      refresh: true,
    });
    expect([fresh.min_iteration, fresh.max_iteration]).toEqual([1, 4]);
  });
});

describe('next_plot_sample state errors', () => {
  const task = unique('ps-');
  beforeAll(async () => {
    await f.add([plot(task, 'M', 'v', 0), plot(task, 'M', 'v', 1)]);
    await eventually(
      () => f.data('events.get_task_plots', { task, iters: 10 }),
      (d) => d.total === 2,
    );
  });

  it('unknown, absent, expired, other task, other company: 400/1104', async () => {
    expectError(
      await f.call('events.next_plot_sample', { task, scroll_id: 'f'.repeat(32) }),
      400,
      1104,
      `Invalid scroll id: scroll_id=${'f'.repeat(32)}`,
    );
    expectError(await f.call('events.next_plot_sample', { task }), 400, 1104, 'Invalid scroll id: scroll_id=None');
    const s: Sample = await f.data('events.get_plot_sample', { task, metric: 'M' });
    expectError(await f.call('events.next_plot_sample', { task: unique('ps-'), scroll_id: s.scroll_id }), 400, 1104);
    expectError(await f.call('events.next_plot_sample', { task, scroll_id: s.scroll_id }, f.tokenB), 400, 1104);
    expect(at(await f.data('events.next_plot_sample', { task, scroll_id: s.scroll_id }))).toEqual([0, 'M', 'v']);
    await f.redis.pExpire(navKey(s.scroll_id), 1);
    // expired for Redis (not merely 'probably after 20 ms') before the call that must see it gone
    await eventually(
      () => f.redis.exists(navKey(s.scroll_id)),
      (n) => n === 0,
      { everyMs: 5, what: 'the state key expired' },
    );
    expectError(await f.call('events.next_plot_sample', { task, scroll_id: s.scroll_id }), 400, 1104);
  });

  it('get_plot_sample with an expired id silently starts a new state', async () => {
    const s: Sample = await f.data('events.get_plot_sample', { task, metric: 'M' });
    await f.redis.del(navKey(s.scroll_id));
    const again: Sample = await f.data('events.get_plot_sample', { task, metric: 'M', scroll_id: s.scroll_id });
    expect(again.scroll_id).not.toBe(s.scroll_id);
    expect(at(again)).toEqual([1, 'M', 'v']);
  });

  it('a failed next does not renew the state; a successful one does', async () => {
    const s: Sample = await f.data('events.get_plot_sample', { task, metric: 'M', iteration: 0 });
    await f.redis.expire(navKey(s.scroll_id), 100);
    expect((await f.data('events.next_plot_sample', { task, scroll_id: s.scroll_id })).events).toEqual([]);
    expect(await f.redis.ttl(navKey(s.scroll_id))).toBeLessThanOrEqual(100);
    expect(
      at(await f.data('events.next_plot_sample', { task, scroll_id: s.scroll_id, navigate_earlier: false })),
    ).toEqual([1, 'M', 'v']);
    expect(await f.redis.ttl(navKey(s.scroll_id))).toBeGreaterThan(3500);
  });
});
