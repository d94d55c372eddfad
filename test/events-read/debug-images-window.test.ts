// events.debug_images (events.md §8.1) through the real pipeline, and the report sections built on the
// same pages (events.md §0.7): debugImagesSection and plotsSection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debugImagesSection } from '../../query/events/debug-images/debug-images-section.js';
import { plotsSection } from '../../query/events/plots/plots-section.js';
import { eventually } from '../harness/eventually.js';
import { type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { image as imageEvent } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

/** An image at files.example.com/<name>, keyed by its name unless `withKey` is false. */
const image = (task: string, metric: string, variant: string, iter: number, name: string | undefined, withKey = true) =>
  imageEvent(
    task,
    metric,
    variant,
    iter,
    name === undefined ? {} : { url: `https://files.example.com/${name}`, ...(withKey ? { key: name } : {}) },
  );

type Page = { scroll_id: string; metrics: Array<{ task: string; iterations: Array<{ iter: number; events: any[] }> }> };
/** Each iteration as "<iter>:<variants>". */
const shown = (page: Page | { iterations: Page['metrics'][0]['iterations'] }) =>
  ('metrics' in page ? page.metrics[0]!.iterations : page.iterations).map(
    (it) => `${it.iter}:${it.events.map((e) => e.variant).join('')}`,
  );

async function imagesVisible(task: string, count: number): Promise<void> {
  await eventually(
    async () => f.h.service.services.stores.influx.query(`SELECT COUNT("ts") FROM "image" WHERE "e" = '${task}'`),
    (r) => Number(r[0]?.series?.[0]?.values[0]?.[1] ?? 0) === count,
  );
}

describe('the contract example: A cycles 7 URLs, B cycles 4, iterations 0..9', () => {
  const task = unique('di-');
  beforeAll(async () => {
    await f.add(
      Array.from({ length: 10 }, (_, n) => [
        image(task, 'img', 'A', n, `A_${n % 7}`),
        image(task, 'img', 'B', n, `B_${n % 4}`),
      ]).flat(),
    );
    // An image without url is stored but never shown.
    await f.add([image(task, 'img', 'A', 10, undefined)]);
    await imagesVisible(task, 21);
  });

  it('iters 5: 9..6 with A and B, 5 with A only; then 4, 3 (A only); then nothing', async () => {
    const body = { metrics: [{ task, metric: 'img' }], iters: 5 };
    const first: Page = await f.data('events.debug_images', body);
    expect(shown(first)).toEqual(['9:AB', '8:AB', '7:AB', '6:AB', '5:A']);
    const second: Page = await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id });
    expect(shown(second)).toEqual(['4:A', '3:A']);
    expect(shown(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id }))).toEqual([]);
    expect(shown(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id, refresh: true }))).toEqual(
      shown(first),
    );
  });

  it('returns the image events as stored', async () => {
    const page: Page = await f.data('events.debug_images', { metrics: [{ task }], iters: 1 });
    expect(page.metrics[0]!.iterations[0]!.events[1]).toEqual({
      type: 'training_debug_image',
      task,
      iter: 9,
      metric: 'img',
      variant: 'B',
      key: 'B_1',
      url: 'https://files.example.com/B_1',
      timestamp: expect.any(Number),
      worker: 'test-worker',
      model_event: false,
      '@timestamp': expect.any(String),
    });
  });

  it('named variants: only they are candidates; validity still applies after the choice', async () => {
    const body = { metrics: [{ task, metric: 'img', variants: ['B'] }], iters: 5 };
    const first: Page = await f.data('events.debug_images', body);
    expect(shown(first)).toEqual(['9:B', '8:B', '7:B', '6:B']);
    expect(shown(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id }))).toEqual([]);
  });

  it('navigating later from the oldest page', async () => {
    const body = { metrics: [{ task }], iters: 3 };
    const first: Page = await f.data('events.debug_images', body);
    expect(shown(first)).toEqual(['9:AB', '8:AB', '7:AB']);
    expect(shown(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id }))).toEqual([
      '6:AB',
      '5:A',
      '4:A',
    ]);
    expect(
      shown(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id, navigate_earlier: false })),
    ).toEqual(['9:AB', '8:AB', '7:AB']);
    expect(
      shown(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id, navigate_earlier: false })),
    ).toEqual([]);
  });

  it('the same rules without image keys (every URL in one series)', async () => {
    const bare = unique('di-');
    await f.add(
      Array.from({ length: 10 }, (_, n) => [
        image(bare, 'img', 'A', n, `A_${n % 7}`, false),
        image(bare, 'img', 'B', n, `B_${n % 4}`, false),
      ]).flat(),
    );
    await imagesVisible(bare, 20);
    expect(shown(await f.data('events.debug_images', { metrics: [{ task: bare }], iters: 5 }))).toEqual([
      '9:AB',
      '8:AB',
      '7:AB',
      '6:AB',
      '5:A',
    ]);
  });

  it('an expired state is replaced silently', async () => {
    const first: Page = await f.data('events.debug_images', { metrics: [{ task }], iters: 5 });
    await f.redis.pExpire(redisKeys(f.h.env.REDIS_KEY_PREFIX!).navigation(f.company('a'), first.scroll_id), 1);
    // expired for Redis (not merely 'probably after 20 ms') before the call that must see it gone
    await eventually(
      () => f.redis.exists(redisKeys(f.h.env.REDIS_KEY_PREFIX!).navigation(f.company('a'), first.scroll_id)),
      (n) => n === 0,
      { everyMs: 5, what: 'the state key expired' },
    );
    const again: Page = await f.data('events.debug_images', {
      metrics: [{ task }],
      iters: 5,
      scroll_id: first.scroll_id,
    });
    expect(again.scroll_id).not.toBe(first.scroll_id);
    expect(shown(again)).toEqual(shown(first));
  });

  it('a plots state id is not a debug_images state', async () => {
    const plots: Page = await f.data('events.plots', { metrics: [{ task }] });
    const page: Page = await f.data('events.debug_images', {
      metrics: [{ task }],
      iters: 1,
      scroll_id: plots.scroll_id,
    });
    expect(page.scroll_id).not.toBe(plots.scroll_id);
    expect(shown(page)).toEqual(['9:AB']);
  });

  it('within an iteration a variant shows its greatest URL', async () => {
    const multi = unique('di-');
    await f.add([image(multi, 'img', 'V', 1, 'a'), image(multi, 'img', 'V', 1, 'c'), image(multi, 'img', 'V', 1, 'b')]);
    await imagesVisible(multi, 3);
    const page: Page = await f.data('events.debug_images', { metrics: [{ task: multi }] });
    expect(page.metrics[0]!.iterations.map((it) => it.events.map((e) => e.key))).toEqual([['c']]);
  });

  it('several images of a variant at one iteration still leave room for `iters` iterations', async () => {
    const crowded = unique('di-');
    await f.add([
      ...['a', 'b', 'c'].map((u) => image(crowded, 'img', 'V', 2, `${u}2`)),
      image(crowded, 'img', 'V', 1, 'a1'),
      image(crowded, 'img', 'V', 0, 'a0'),
    ]);
    await imagesVisible(crowded, 5);
    const page: Page = await f.data('events.debug_images', { metrics: [{ task: crowded }], iters: 2 });
    expect(page.metrics[0]!.iterations.map((it) => [it.iter, it.events.map((e) => e.key)])).toEqual([
      [2, ['c2']],
      [1, ['a1']],
    ]);
  });

  it('a page reads every file of its iterations, however many share one (the narrow read is cut inside them)', async () => {
    const files = unique('di-');
    // Keys and URLs sort in opposite orders: the file InfluxDB lists first at a time is not the one with the greatest URL.
    const many = (iter: number) =>
      ['a', 'b', 'c', 'd', 'e'].map((k, n) => ({
        ...image(files, 'img', 'V', iter, `${'edcba'[n]}${iter}`),
        key: `${k}${iter}`,
      }));
    await f.add([...many(5), ...many(4), image(files, 'img', 'V', 3, 'a3')]);
    await imagesVisible(files, 11);
    const first: Page = await f.data('events.debug_images', { metrics: [{ task: files }], iters: 1 });
    expect(first.metrics[0]!.iterations.map((it) => [it.iter, it.events.map((e) => e.url.slice(-2))])).toEqual([
      [5, ['e5']],
    ]);
    const second: Page = await f.data('events.debug_images', {
      metrics: [{ task: files }],
      iters: 1,
      scroll_id: first.scroll_id,
    });
    expect(second.metrics[0]!.iterations.map((it) => [it.iter, it.events.map((e) => e.url.slice(-2))])).toEqual([
      [4, ['e4']],
    ]);
  });

  it('model events are apart from task events', async () => {
    const id = unique('dim-');
    await f.add([image(id, 'img', 'V', 1, 'task-file')]);
    await f.add([{ ...image(id, 'img', 'V', 4, 'model-file'), model_event: true }]);
    await imagesVisible(id, 2);
    const model: Page = await f.data('events.debug_images', { metrics: [{ task: id }], model_events: true });
    expect(model.metrics[0]!.iterations.map((it) => [it.iter, it.events[0].key, it.events[0].model_event])).toEqual([
      [4, 'model-file', true],
    ]);
    const task: Page = await f.data('events.debug_images', { metrics: [{ task: id }] });
    expect(task.metrics[0]!.iterations.map((it) => [it.iter, it.events[0].key, it.events[0].model_event])).toEqual([
      [1, 'task-file', false],
    ]);
    const sample = await f.data('events.get_debug_image_sample', {
      task: id,
      metric: 'img',
      variant: 'V',
      model_events: true,
    });
    expect([sample.event.key, sample.min_iteration, sample.max_iteration]).toEqual(['model-file', 4, 4]);
  });

  it("another company's task: 400 invalid_task_id naming it, nothing of its images, no state", async () => {
    const theirs = unique('dia-');
    const own = unique('dib-');
    await f.add([image(theirs, 'img', 'V', 1, 'their-secret-file')]);
    await f.add([image(own, 'img', 'V', 1, 'own-file')], f.tokenB);
    await imagesVisible(theirs, 1);
    await imagesVisible(own, 1);
    const navKeys = () => f.redis.keys(`${redisKeys(f.h.env.REDIS_KEY_PREFIX!).company(f.company('b'))}:nav:*`);
    const statesBefore = (await navKeys()).length;
    for (const metrics of [[{ task: theirs }], [{ task: own }, { task: theirs }]]) {
      const r = await f.call('events.debug_images', { metrics, iters: 3 }, f.tokenB);
      expect([r.status, r.body.meta.result_code, r.body.meta.result_subcode]).toEqual([400, 400, 101]);
      expect(r.body.meta.result_msg).toContain(theirs);
      expect(JSON.stringify(r.body)).not.toContain('their-secret-file');
    }
    expect((await navKeys()).length).toBe(statesBefore);
    // B's own task still reads (its index read alongside the check).
    const page: Page = await f.data('events.debug_images', { metrics: [{ task: own }] }, f.tokenB);
    expect(page.metrics[0]!.iterations.map((it) => it.events[0].key)).toEqual(['own-file']);
  });

  it('debugImagesSection: the first page of a fresh state, no state stored; public records get no iterations', async () => {
    const before = await f.redis.keys(`${redisKeys(f.h.env.REDIS_KEY_PREFIX!).company(f.company('a'))}:nav:*`);
    const section = await debugImagesSection(
      f.deps,
      f.company('a'),
      't',
      [
        { id: task, company: f.company('a'), name: task },
        { id: 'public-one', company: '', name: 'public' },
      ],
      { iters: 5, metrics: [{ metric: 'img' }] },
    );
    expect(section.map((s) => s.task)).toEqual([task, 'public-one']);
    expect(shown(section[0]!)).toEqual(['9:AB', '8:AB', '7:AB', '6:AB', '5:A']);
    expect(section[1]!.iterations).toEqual([]);
    expect((await f.redis.keys(`${redisKeys(f.h.env.REDIS_KEY_PREFIX!).company(f.company('a'))}:nav:*`)).length).toBe(
      before.length,
    );
  });
});

describe('plotsSection', () => {
  it('the plots map of the first get_multi_task_plots page; public records contribute nothing', async () => {
    const task = unique('ps-');
    await f.add(
      [1, 2].map((iter) => ({ type: 'plot', task, metric: 'roc', variant: 'c', iter, plot_str: `{"i": ${iter}}` })),
    );
    await eventually(
      () => f.data('events.get_task_plots', { task, iters: 5 }),
      (d) => d.total === 2,
    );
    const plots = await plotsSection(
      f.deps,
      f.company('a'),
      't',
      [
        { id: task, company: f.company('a'), name: 'named run' },
        { id: 'public-one', company: '', name: 'public' },
      ],
      { iters: 2 },
    );
    expect(Object.keys(plots)).toEqual(['roc']);
    const byIter = plots.roc!.c![task]!;
    expect(Object.keys(byIter).sort()).toEqual(['1', '2']);
    expect(byIter['2']!.name).toBe('named run');
    expect(byIter['2']!.plots.map((p) => p.plot_str)).toEqual(['{"i": 2}']);
  });
});
