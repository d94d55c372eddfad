// events.get_scalar_metric_data (events.md §4.4): newest iteration first, pages of 500, total capped at 10000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const task = unique('data-');
const T0 = 1_718_000_000_000;
const ITERS = 4000;
const VARIANTS = ['a', 'b', 'c'];
/**
 * Metrics whose totals the first page's density misjudges or that sit near
 * the cap (query/events/store/scalar-metric-data-total.ts counts a range sized from the page):
 * `mixed`: dense iterations 0..8999, then 600 sparse ones far above;
 * `near`: 9,999 dense iterations; `specials`: two variants of 1,500
 * iterations plus a single value and an event without iteration.
 */
const MIXED_DENSE = 9000;
const MIXED_SPARSE = 600;
const NEAR = 9999;
const SPECIAL_ITERS = 1500;
const EXTRA = MIXED_DENSE + MIXED_SPARSE + NEAR + 2 * SPECIAL_ITERS + 2;

beforeAll(async () => {
  r = await startServiceFixture();
  const events: object[] = [];
  for (let i = 0; i < ITERS; i++)
    VARIANTS.forEach((v, k) => events.push(scalar(task, 'loss', v, i, i + k / 10, { timestamp: T0 + k })));
  events.push(scalar(task, 'loss', 'a', undefined, -1, { timestamp: T0 }));
  events.push(scalar(task, 'loss', 'b', -2147483648, -2, { timestamp: T0 }));
  events.push(scalar(task, 'other', 'a', 5, 5));
  for (let i = 0; i < MIXED_DENSE; i++) events.push(scalar(task, 'mixed', 'a', i, i));
  for (let i = 0; i < MIXED_SPARSE; i++) events.push(scalar(task, 'mixed', 'a', 100_000 + 1000 * i, i));
  for (let i = 0; i < NEAR; i++) events.push(scalar(task, 'near', 'a', i, i));
  for (let i = 0; i < SPECIAL_ITERS; i++) for (const v of ['a', 'b']) events.push(scalar(task, 'specials', v, i, i));
  events.push(scalar(task, 'specials', 'a', -2147483648, 1), scalar(task, 'specials', 'b', undefined, 2));
  await r.add(events);
  await untilCount(r, task, ITERS * 3 + 3 + EXTRA, {}, 60_000);
}, 120_000);
afterAll(async () => r?.stop());

const read = (body: object) => r.data('events.get_scalar_metric_data', { task, metric: 'loss', ...body });

describe('events.get_scalar_metric_data', () => {
  it('pages every event exactly once, newest iteration first, ties by timestamp desc, events without iter last', async () => {
    const first = await read({});
    expect(first.total).toBe(10_000);
    expect(first.returned).toBe(500);
    expect(first.events.slice(0, 4).map((e: any) => [e.iter, e.variant])).toEqual([
      [3999, 'c'],
      [3999, 'b'],
      [3999, 'a'],
      [3998, 'c'],
    ]);
    expect(first.events[0]).toMatchObject({
      type: 'training_stats_scalar',
      task,
      metric: 'loss',
      variant: 'c',
      value: 3999.2,
      timestamp: T0 + 2,
      model_event: false,
    });
    const seen: any[] = [...first.events];
    let scroll = first.scroll_id;
    for (let guard = 0; guard < 40; guard++) {
      const page = await read({ scroll_id: scroll });
      expect(page.total).toBe(10_000);
      if (page.returned === 0) break;
      seen.push(...page.events);
      scroll = page.scroll_id;
    }
    expect(seen).toHaveLength(ITERS * 3 + 2);
    const keys = seen.map((e) => `${e.iter ?? 'none'}/${e.variant}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.slice(-3)).toEqual(['0/a', '-2147483648/b', 'none/a']);
    for (let i = 1; i < seen.length - 1; i++) expect(seen[i].iter).toBeLessThanOrEqual(seen[i - 1].iter);
    const exhausted = await read({ scroll_id: scroll });
    expect(exhausted).toMatchObject({ events: [], returned: 0 });
  }, 60_000);

  it('answers scroll_id null with no_scroll and counts small metrics exactly', async () => {
    const d = await read({ metric: 'other', no_scroll: true });
    expect(d).toMatchObject({ returned: 1, total: 1, scroll_id: null });
  });

  it('counts exactly below the cap whatever the density of the first page, and caps at 10000', async () => {
    expect((await read({ metric: 'mixed' })).total).toBe(MIXED_DENSE + MIXED_SPARSE);
    expect((await read({ metric: 'near' })).total).toBe(NEAR);
    expect((await read({ metric: 'specials' })).total).toBe(2 * SPECIAL_ITERS + 2);
    // One more event above the cap.
    await r.add([scalar(task, 'near', 'b', 0, 0)]);
    await r.poll('events.get_scalar_metric_data', { task, metric: 'near' }, (d) => d.total === 10_000);
    await r.add([scalar(task, 'mixed', 'b', 0, 0)]);
    await r.poll(
      'events.get_scalar_metric_data',
      { task, metric: 'mixed' },
      (d) => d.total === MIXED_DENSE + MIXED_SPARSE + 1,
    );
  }, 60_000);

  it('refuses foreign cursors and requires metric', async () => {
    const first = await read({});
    const wrongTask = await r.call('events.get_scalar_metric_data', {
      task: unique('x'),
      metric: 'loss',
      scroll_id: first.scroll_id,
    });
    expect(wrongTask.body.meta.result_subcode).toBe(1104);
    const bad = await r.call('events.get_scalar_metric_data', { task, metric: 'loss', scroll_id: 'nope' });
    expect(bad.body.meta.result_msg).toBe('Invalid scroll id: scroll_id=nope');
    const missing = await r.call('events.get_scalar_metric_data', { task });
    expect(missing.body.meta.result_msg).toBe("Validation error (error for field 'metric'. field is required!)");
  });

  it('stays exact when the metric listing lags the points (fewer variants known than stored)', async () => {
    const listing = r.keys.metricListing(r.h.credentials.a.company, 't', task);
    const members = await r.redis.sMembers(listing);
    await r.redis.del(listing);
    try {
      const seen: string[] = [];
      let scroll: string | undefined;
      for (let guard = 0; guard < 40; guard++) {
        const page = await read(scroll ? { scroll_id: scroll } : {});
        if (page.returned === 0) break;
        seen.push(...page.events.map((e: any) => `${e.iter ?? 'none'}/${e.variant}`));
        scroll = page.scroll_id;
      }
      expect(seen).toHaveLength(ITERS * 3 + 2);
      expect(new Set(seen).size).toBe(seen.length);
    } finally {
      await r.redis.sAdd(listing, members);
    }
  }, 60_000);
});
