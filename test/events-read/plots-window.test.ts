// events.plots (events.md §7.3): iteration windows with a Redis navigation state, through the real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { plot as plotEvent } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

/** A plot whose plot_str is short enough to assert plot_len on. */
const plot = (task: string, metric: string, variant: string, iter: number, extra: object = {}) =>
  plotEvent(task, metric, variant, iter, { plot_str: `{"at": ${iter}}`, ...extra });

type Page = { scroll_id: string; metrics: Array<{ task: string; iterations: Array<{ iter: number; events: any[] }> }> };
const iters = (page: Page, i = 0) => page.metrics[i]!.iterations.map((it) => it.iter);
const navKey = (company: string, id: string) => redisKeys(f.h.env.REDIS_KEY_PREFIX!).navigation(company, id);

async function plotsVisible(task: string, total: number, modelEvents = false): Promise<void> {
  await eventually(
    () => f.data('events.get_task_plots', { task, iters: 100, model_events: modelEvents }),
    (d) => d.total === total,
  );
}

describe('the contract example: ten iterations, iters 5', () => {
  const task = unique('win-');
  beforeAll(async () => {
    await f.add(Array.from({ length: 10 }, (_, i) => [plot(task, 'm', 'v2', i), plot(task, 'm', 'v1', i)]).flat());
    await plotsVisible(task, 20);
  });

  it('pages 9..5, 4..0, nothing; later 9..5; earlier 4..0; refresh 9..5', async () => {
    const body = { metrics: [{ task }], iters: 5 };
    const first: Page = await f.data('events.plots', body);
    expect(first.scroll_id).toMatch(/^[0-9a-f]{32}$/);
    expect(iters(first)).toEqual([9, 8, 7, 6, 5]);
    const scroll_id = first.scroll_id;
    const second: Page = await f.data('events.plots', { ...body, scroll_id });
    expect(second.scroll_id).toBe(scroll_id);
    expect(iters(second)).toEqual([4, 3, 2, 1, 0]);
    expect(iters(await f.data('events.plots', { ...body, scroll_id }))).toEqual([]);
    expect(iters(await f.data('events.plots', { ...body, scroll_id, navigate_earlier: false }))).toEqual([
      9, 8, 7, 6, 5,
    ]);
    expect(iters(await f.data('events.plots', { ...body, scroll_id }))).toEqual([4, 3, 2, 1, 0]);
    expect(iters(await f.data('events.plots', { ...body, scroll_id, refresh: true }))).toEqual([9, 8, 7, 6, 5]);
  });

  it('each iteration lists its plots by metric, then variant', async () => {
    const page: Page = await f.data('events.plots', { metrics: [{ task }], iters: 1 });
    const [iteration] = page.metrics[0]!.iterations;
    expect(iteration!.events.map((e) => `${e.metric}/${e.variant}@${e.iter}`)).toEqual(['m/v1@9', 'm/v2@9']);
    expect(iteration!.events[0]).toMatchObject({
      type: 'plot',
      task,
      plot_str: '{"at": 9}',
      plot_len: 9,
      model_event: false,
    });
  });

  it("the state lives in Redis under its company's navigation key for 3600 s", async () => {
    const { scroll_id } = await f.data('events.plots', { metrics: [{ task }], iters: 5 });
    const ttl = await f.redis.ttl(navKey(f.company('a'), scroll_id));
    expect(ttl).toBeGreaterThan(3590);
    expect(ttl).toBeLessThanOrEqual(3600);
  });

  it('an expired or deleted state is silently replaced by a new one', async () => {
    const first: Page = await f.data('events.plots', { metrics: [{ task }], iters: 5 });
    await f.redis.pExpire(navKey(f.company('a'), first.scroll_id), 1);
    // expired for Redis (not merely 'probably after 20 ms') before the call that must see it gone
    await eventually(
      () => f.redis.exists(navKey(f.company('a'), first.scroll_id)),
      (n) => n === 0,
      { everyMs: 5, what: 'the state key expired' },
    );
    const again: Page = await f.data('events.plots', { metrics: [{ task }], iters: 5, scroll_id: first.scroll_id });
    expect(again.scroll_id).not.toBe(first.scroll_id);
    expect(iters(again)).toEqual([9, 8, 7, 6, 5]);
    const unknown: Page = await f.data('events.plots', { metrics: [{ task }], iters: 5, scroll_id: 'not-a-state' });
    expect(iters(unknown)).toEqual([9, 8, 7, 6, 5]);
  });

  it("another company's state id is not found: a new state", async () => {
    const theirs = unique('win-b-');
    await f.add([plot(theirs, 'x', 'y', 3)], f.tokenB);
    await eventually(
      () => f.data('events.get_task_plots', { task: theirs }, f.tokenB),
      (d) => d.total === 1,
    );
    const mine: Page = await f.data('events.plots', { metrics: [{ task }], iters: 5 });
    const page: Page = await f.data(
      'events.plots',
      { metrics: [{ task: theirs }], scroll_id: mine.scroll_id },
      f.tokenB,
    );
    expect(page.scroll_id).not.toBe(mine.scroll_id);
    expect(page.metrics.map((m) => m.task)).toEqual([theirs]);
    expect(iters(page)).toEqual([3]);
  });
});

describe('selection', () => {
  it('one entry per requested task in order, empty tasks included; named variants only', async () => {
    const a = unique('win-');
    const empty = unique('win-');
    await f.add([plot(a, 'm1', 'x', 1), plot(a, 'm1', 'y', 1), plot(a, 'm2', 'z', 2)]);
    await f.add([{ type: 'log', task: empty, msg: 'no plots' }]);
    await plotsVisible(a, 3);
    const page: Page = await f.data('events.plots', {
      metrics: [{ task: empty }, { task: a, metric: 'm1', variants: ['y'] }, { task: a, metric: 'm2' }],
      iters: 2,
    });
    expect(page.metrics.map((m) => m.task)).toEqual([empty, a]);
    expect(page.metrics[0]!.iterations).toEqual([]);
    expect(
      page.metrics[1]!.iterations.map((it) => [it.iter, it.events.map((e) => `${e.metric}/${e.variant}`)]),
    ).toEqual([
      [2, ['m2/z']],
      [1, ['m1/y']],
    ]);
  });

  it('a metric reported after the state was built shows only after refresh; new variants show at once', async () => {
    const task = unique('win-');
    await f.add([plot(task, 'a', 'v', 1)]);
    await plotsVisible(task, 1);
    const first: Page = await f.data('events.plots', { metrics: [{ task }], iters: 3 });
    await f.add([plot(task, 'b', 'v', 5), plot(task, 'a', 'w', 6)]);
    await plotsVisible(task, 3);
    const later: Page = await f.data('events.plots', {
      metrics: [{ task }],
      iters: 3,
      scroll_id: first.scroll_id,
      navigate_earlier: false,
    });
    expect(
      later.metrics[0]!.iterations.map((it) => [it.iter, it.events.map((e) => `${e.metric}/${e.variant}`)]),
    ).toEqual([[6, ['a/w']]]);
    const refreshed: Page = await f.data('events.plots', {
      metrics: [{ task }],
      iters: 3,
      scroll_id: first.scroll_id,
      refresh: true,
    });
    expect(iters(refreshed)).toEqual([6, 5, 1]);
  });

  it('model events are apart from task events', async () => {
    const id = unique('winm-');
    await f.add([plot(id, 'm', 'v', 1)]);
    await f.add([plot(id, 'm', 'v', 7, { model_event: true })]);
    await plotsVisible(id, 1, true);
    await plotsVisible(id, 1);
    expect(iters(await f.data('events.plots', { metrics: [{ task: id }], model_events: true }))).toEqual([7]);
    expect(iters(await f.data('events.plots', { metrics: [{ task: id }] }))).toEqual([1]);
  });

  it('errors: unknown task 400/101, metrics required', async () => {
    const r = await f.call('events.plots', { metrics: [{ task: unique('nope-') }] });
    expect([r.status, r.body.meta.result_subcode]).toEqual([400, 101]);
    const missing = await f.call('events.plots', {});
    expect([missing.status, missing.body.meta.result_subcode]).toEqual([400, 12]);
  });
});
