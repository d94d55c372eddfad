// events.get_debug_image_sample (events.md §8.2) and events.next_debug_image_sample (§8.3) through the real pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { expectError, type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { image } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

type Sample = {
  scroll_id: string;
  event: { iter: number; metric: string; variant: string; url: string } | null;
  min_iteration: number | null;
  max_iteration: number | null;
};
const at = (s: Sample) => (s.event === null ? null : [s.event.iter, s.event.variant]);
const navKey = (id: string) => redisKeys(f.h.env.REDIS_KEY_PREFIX!).navigation(f.company('a'), id);

async function imagesVisible(task: string, count: number): Promise<void> {
  // Its own InfluxDB client: in the cluster pass there is no in-process service to borrow one from.
  const influx = new InfluxStore({ url: f.h.env.INFLUX_URL!, database: f.h.env.INFLUX_DB! });
  await eventually(
    async () => influx.query(`SELECT COUNT("ts") FROM "image" WHERE "e" = '${task}'`),
    (r) => Number(r[0]?.series?.[0]?.values[0]?.[1] ?? 0) === count,
  );
}

describe('the contract example: URLs cycling over 4 names, iterations 0..9', () => {
  const task = unique('ds-');
  beforeAll(async () => {
    await f.add(
      Array.from({ length: 10 }, (_, n) =>
        image(task, 'samples', 'input', n, { url: `https://files/img_${n % 4}.jpg` }),
      ),
    );
    await f.add([image(task, 'samples', 'input', 12)]); // no url: never a sample, no effect on the range
    await imagesVisible(task, 11);
  });

  it('max_iteration 9, min_iteration 6, latest event 9; iteration 8 gives 8; below the range nothing', async () => {
    const s: Sample = await f.data('events.get_debug_image_sample', { task, metric: 'samples', variant: 'input' });
    expect([s.min_iteration, s.max_iteration]).toEqual([6, 9]);
    expect(s.event).toMatchObject({
      type: 'training_debug_image',
      task,
      iter: 9,
      metric: 'samples',
      variant: 'input',
      url: 'https://files/img_1.jpg',
    });
    expect(
      at(await f.data('events.get_debug_image_sample', { task, metric: 'samples', variant: 'input', iteration: 8 })),
    ).toEqual([8, 'input']);
    const below: Sample = await f.data('events.get_debug_image_sample', {
      task,
      metric: 'samples',
      variant: 'input',
      iteration: 4,
    });
    expect([below.event, below.min_iteration, below.max_iteration]).toEqual([null, 6, 9]);
  });

  it('next stays within the range', async () => {
    const s: Sample = await f.data('events.get_debug_image_sample', {
      task,
      metric: 'samples',
      variant: 'input',
      iteration: 7,
    });
    expect(at(await f.data('events.next_debug_image_sample', { task, scroll_id: s.scroll_id }))).toEqual([6, 'input']);
    expect(await f.data('events.next_debug_image_sample', { task, scroll_id: s.scroll_id })).toEqual({
      scroll_id: s.scroll_id,
      event: null,
      min_iteration: null,
      max_iteration: null,
    });
    expect(
      at(await f.data('events.next_debug_image_sample', { task, scroll_id: s.scroll_id, navigate_earlier: false })),
    ).toEqual([7, 'input']);
  });

  it('with keys naming the files, the ranges are the same', async () => {
    const keyed = unique('ds-');
    await f.add(
      Array.from({ length: 10 }, (_, n) =>
        image(keyed, 'samples', 'input', n, { url: `https://files/img_${n % 4}.jpg`, key: `img_${n % 4}.jpg` }),
      ),
    );
    await imagesVisible(keyed, 10);
    const s: Sample = await f.data('events.get_debug_image_sample', {
      task: keyed,
      metric: 'samples',
      variant: 'input',
    });
    expect([at(s), s.min_iteration, s.max_iteration]).toEqual([[9, 'input'], 6, 9]);
  });

  it('an unknown variant: no event, no range', async () => {
    expect(await f.data('events.get_debug_image_sample', { task, metric: 'samples', variant: 'other' })).toEqual({
      scroll_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      event: null,
      min_iteration: null,
      max_iteration: null,
    });
  });
});

describe('the contract example: variants V1 and V2 at iterations 0 and 1', () => {
  const task = unique('ds-');
  beforeAll(async () => {
    await f.add(
      [0, 1].flatMap((i) => ['V2', 'V1'].map((v) => image(task, 'M', v, i, { url: `https://files/${v}_${i}.png` }))),
    );
    await f.add([image(task, 'Other', 'X', 5, { url: 'https://files/x.png' })]);
    await imagesVisible(task, 5);
  });

  it('(1, V1); later (1, V2); later nothing; earlier (1, V1), (0, V2), (0, V1); earlier nothing', async () => {
    const s: Sample = await f.data('events.get_debug_image_sample', { task, metric: 'M', variant: 'V1' });
    expect(at(s)).toEqual([1, 'V1']);
    const next = async (navigate_earlier: boolean): Promise<Sample> =>
      f.data('events.next_debug_image_sample', { task, scroll_id: s.scroll_id, navigate_earlier });
    expect(at(await next(false))).toEqual([1, 'V2']);
    expect(at(await next(false))).toBeNull();
    expect(at(await next(true))).toEqual([1, 'V1']);
    const step = await next(true);
    expect([at(step), step.min_iteration, step.max_iteration]).toEqual([[0, 'V2'], 0, 1]);
    expect(at(await next(true))).toEqual([0, 'V1']);
    expect(await next(true)).toEqual({ scroll_id: s.scroll_id, event: null, min_iteration: null, max_iteration: null });
  });

  it('next_iteration skips the other variants of the iteration', async () => {
    const s: Sample = await f.data('events.get_debug_image_sample', { task, metric: 'M', variant: 'V2' });
    expect(
      at(await f.data('events.next_debug_image_sample', { task, scroll_id: s.scroll_id, next_iteration: true })),
    ).toEqual([0, 'V2']);
  });

  it('navigate_current_metric false moves across metrics', async () => {
    const s: Sample = await f.data('events.get_debug_image_sample', {
      task,
      metric: 'M',
      variant: 'V2',
      navigate_current_metric: false,
    });
    const later: Sample = await f.data('events.next_debug_image_sample', {
      task,
      scroll_id: s.scroll_id,
      navigate_earlier: false,
    });
    expect([later.event?.metric, later.event?.iter, later.min_iteration, later.max_iteration]).toEqual([
      'Other',
      5,
      5,
      5,
    ]);
  });

  it('another metric with the same state id is 400/1104 "do not match"', async () => {
    const s: Sample = await f.data('events.get_debug_image_sample', { task, metric: 'M', variant: 'V1' });
    expectError(
      await f.call('events.get_debug_image_sample', { task, metric: 'Other', variant: 'X', scroll_id: s.scroll_id }),
      400,
      1104,
      `Invalid scroll id (Task and metric stored in the state do not match the passed ones): scroll_id=${s.scroll_id}`,
    );
    expect(
      at(
        await f.data('events.get_debug_image_sample', {
          task,
          metric: 'M',
          variant: 'V2',
          iteration: 0,
          scroll_id: s.scroll_id,
        }),
      ),
    ).toEqual([0, 'V2']);
  });

  it('next: unknown, absent, expired and foreign states are 400/1104; get with an expired id starts anew', async () => {
    expectError(
      await f.call('events.next_debug_image_sample', { task }),
      400,
      1104,
      'Invalid scroll id: scroll_id=None',
    );
    expectError(
      await f.call('events.next_debug_image_sample', { task, scroll_id: 'nope' }),
      400,
      1104,
      'Invalid scroll id: scroll_id=nope',
    );
    const s: Sample = await f.data('events.get_debug_image_sample', { task, metric: 'M', variant: 'V1' });
    expectError(await f.call('events.next_debug_image_sample', { task, scroll_id: s.scroll_id }, f.tokenB), 400, 1104);
    expectError(
      await f.call('events.next_debug_image_sample', { task: unique('ds-'), scroll_id: s.scroll_id }),
      400,
      1104,
    );
    await f.redis.pExpire(navKey(s.scroll_id), 1);
    // expired for Redis (not merely 'probably after 20 ms') before the call that must see it gone
    await eventually(
      () => f.redis.exists(navKey(s.scroll_id)),
      (n) => n === 0,
      { everyMs: 5, what: 'the state key expired' },
    );
    expectError(await f.call('events.next_debug_image_sample', { task, scroll_id: s.scroll_id }), 400, 1104);
    const fresh: Sample = await f.data('events.get_debug_image_sample', {
      task,
      metric: 'M',
      variant: 'V1',
      scroll_id: s.scroll_id,
    });
    expect(fresh.scroll_id).not.toBe(s.scroll_id);
    expect(at(fresh)).toEqual([1, 'V1']);
  });

  it('validation and unknown task', async () => {
    expectError(
      await f.call('events.get_debug_image_sample', { task, metric: 'M' }),
      400,
      12,
      "Validation error (error for field 'variant'. field is required!)",
    );
    expectError(
      await f.call('events.get_debug_image_sample', { task: unique('nope-'), metric: 'M', variant: 'V1' }),
      400,
      101,
      'Invalid task id',
    );
  });
});
