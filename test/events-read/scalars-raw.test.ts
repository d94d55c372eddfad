// events.scalar_metrics_iter_raw (events.md §4.3): paging by x with a signed cursor, count_total,
// the never-split rule, key=timestamp/iso_time, and cursor refusals (400/1104).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const big = unique('big-');
const small = unique('small-');
const other = unique('other-');
const odd = unique('odd-');
/** Variant names that InfluxDB's CSV answers quote or escape, and values that need every digit of a double. */
const ODD_VARIANTS = ['has,comma', 'q"uote', 'sp ace', 'eq=ual', 'ünï', ''];
const ODD_VALUES = [0.1 + 0.2, 1e-300, -1.7976931348623157e308, 5e-324, 123456789.123456789, 2 ** 53 + 2];
const T0 = 1_718_000_000_000;
const BIG_ITERS = 90_000;
const VARIANTS = ['a', 'b', 'c'];

beforeAll(async () => {
  r = await startServiceFixture();
  const events: object[] = [];
  for (let i = 0; i < BIG_ITERS; i++) for (const v of VARIANTS) events.push(scalar(big, 'loss', v, i, i));
  await r.add(events);
  await r.add([
    scalar(small, 'm', 'a', 0, 10, { timestamp: T0 + 5 }),
    scalar(small, 'm', 'b', 0, 11, { timestamp: T0 + 5 }),
    scalar(small, 'm', 'a', 1, 12, { timestamp: T0 + 1 }),
    scalar(small, 'm', 'a', 2, 13, { timestamp: T0 + 9 }),
    scalar(small, 'm', 'a', -2147483648, 99, { timestamp: T0 + 3 }),
    scalar(small, 'm', 'a', undefined, 77, { timestamp: T0 + 2 }),
    scalar(small, 'other', 'a', 0, 1),
  ]);
  await r.add([scalar(other, 'm', 'a', 0, 1)], r.tokenB);
  await r.add(ODD_VARIANTS.map((v, i) => scalar(odd, 'm', v, 3, ODD_VALUES[i]!)));
  await untilCount(r, odd, ODD_VARIANTS.length);
  await untilCount(r, big, BIG_ITERS * VARIANTS.length, {}, 60_000);
  await untilCount(r, small, 7);
}, 180_000);
afterAll(async () => r?.stop());

const raw = (body: object, token?: string) => r.data('events.scalar_metrics_iter_raw', body, token);

describe('paging the full-detail chart', () => {
  it('pages 270k points by 200k with count_total, never splitting an iteration', async () => {
    const first = await raw({ task: big, metric: { metric: 'loss' }, batch_size: 200_000, count_total: true });
    expect(first.total).toBe(270_000);
    // Point 200000 is the second of iteration 66666: its third variant comes along.
    expect(first.returned).toBe(200_001);
    expect(first.variants.a.iter).toHaveLength(66_667);
    expect(first.variants.c.iter[66_666]).toBe(66_666);
    expect(first.variants.a.y[10]).toBe(10);
    const second = await raw({ task: big, metric: { metric: 'loss' }, scroll_id: first.scroll_id });
    expect(second.returned).toBe(69_999);
    expect(second.total).toBe(270_000);
    expect(second.variants.a.iter[0]).toBe(66_667);
    expect(second.variants.b.iter.at(-1)).toBe(BIG_ITERS - 1);
    const third = await raw({ task: big, metric: { metric: 'loss' }, scroll_id: second.scroll_id });
    expect(third).toMatchObject({ returned: 0, total: 270_000, variants: {} });
    const again = await raw({ task: big, metric: { metric: 'loss' }, scroll_id: third.scroll_id });
    expect(again.returned).toBe(0);
  }, 60_000);

  it('caps batch_size at 200000, defaults to 10000, and keeps the first call size', async () => {
    const capped = await raw({ task: big, metric: { metric: 'loss', variants: ['a'] }, batch_size: 500_000 });
    expect(capped.returned).toBe(BIG_ITERS);
    const first = await raw({ task: big, metric: { metric: 'loss', variants: ['b'] } });
    expect(first.returned).toBe(10_000);
    expect(first.total).toBeNull();
    const sized = await raw({ task: big, metric: { metric: 'loss', variants: ['b'] }, batch_size: 7 });
    const next = await raw({ task: big, metric: { metric: 'loss' }, scroll_id: sized.scroll_id, batch_size: 0 });
    expect(next.returned).toBe(7);
    expect(Object.keys(next.variants)).toEqual(['b']);
    expect(next.variants.b.iter[0]).toBe(7);
    const resized = await raw({
      task: big,
      metric: { metric: 'loss' },
      scroll_id: next.scroll_id,
      batch_size: 3,
      count_total: true,
    });
    expect(resized.variants.b.iter).toEqual([14, 15, 16]);
    expect(resized.total).toBe(BIG_ITERS);
  }, 60_000);

  it('refuses a negative batch_size', async () => {
    const res = await r.call('events.scalar_metrics_iter_raw', {
      task: small,
      metric: { metric: 'm' },
      batch_size: -1,
    });
    expect(res.body.meta).toMatchObject({
      result_code: 400,
      result_subcode: 12,
      result_msg: 'Validation error (batch_size should be non negative number)',
    });
  });
});

describe('selection and order', () => {
  it('includes single values by iteration, excludes events without one, and treats 0 as a position', async () => {
    const all = await raw({ task: small, metric: { metric: 'm' }, count_total: true });
    expect(all.total).toBe(5);
    expect(all.variants).toEqual({
      a: { y: [99, 10, 12, 13], iter: [-2147483648, 0, 1, 2] },
      b: { y: [11], iter: [0] },
    });
    const p1 = await raw({ task: small, metric: { metric: 'm' }, batch_size: 1 });
    expect(p1.variants).toEqual({ a: { y: [99], iter: [-2147483648] } });
    const p2 = await raw({ task: small, metric: { metric: 'm' }, scroll_id: p1.scroll_id });
    // Iteration 0 holds two points: both come, never split.
    expect(p2.returned).toBe(2);
    expect(p2.variants).toEqual({ a: { y: [10], iter: [0] }, b: { y: [11], iter: [0] } });
    const p3 = await raw({ task: small, metric: { metric: 'm' }, scroll_id: p2.scroll_id });
    expect(p3.variants).toEqual({ a: { y: [12], iter: [1] } });
  });

  it('orders by timestamp with key=timestamp, events without iteration included', async () => {
    const d = await raw({ task: small, metric: { metric: 'm' }, key: 'timestamp', count_total: true });
    expect(d.total).toBe(6);
    expect(d.variants.a).toEqual({ y: [12, 77, 99, 10, 13], timestamp: [T0 + 1, T0 + 2, T0 + 3, T0 + 5, T0 + 9] });
    expect(d.variants.b).toEqual({ y: [11], timestamp: [T0 + 5] });
    const p1 = await raw({ task: small, metric: { metric: 'm' }, key: 'timestamp', batch_size: 3 });
    expect(p1.variants).toEqual({ a: { y: [12, 77, 99], timestamp: [T0 + 1, T0 + 2, T0 + 3] } });
    const p2 = await raw({ task: small, metric: { metric: 'm' }, key: 'iter', scroll_id: p1.scroll_id, batch_size: 1 });
    // The cursor's key wins; the two points of T0+5 are never split.
    expect(p2.returned).toBe(2);
    expect(p2.variants).toEqual({ a: { y: [10], timestamp: [T0 + 5] }, b: { y: [11], timestamp: [T0 + 5] } });
  });

  it('names the x values iso_time with key=iso_time (epoch ms numbers)', async () => {
    const d = await raw({ task: small, metric: { metric: 'm', variants: ['b'] }, key: 'iso_time' });
    expect(d.variants).toEqual({ b: { y: [11], iso_time: [T0 + 5] } });
  });

  it('keeps variant names and values exactly, whatever characters and digits they hold', async () => {
    const d = await raw({ task: odd, metric: { metric: 'm' } });
    expect(d.variants).toEqual(Object.fromEntries(ODD_VARIANTS.map((v, i) => [v, { y: [ODD_VALUES[i]], iter: [3] }])));
  });

  it('answers an empty page for an unknown metric', async () => {
    const d = await raw({ task: small, metric: { metric: 'nothing' }, count_total: true });
    expect(d).toMatchObject({ returned: 0, total: 0, variants: {} });
    expect(typeof d.scroll_id).toBe('string');
  });
});

describe('cursor refusals', () => {
  it('refuses bad, foreign and other-task cursors with 400/1104', async () => {
    const mine = await raw({ task: small, metric: { metric: 'm' }, batch_size: 1 });
    const bad = await r.call('events.scalar_metrics_iter_raw', {
      task: small,
      metric: { metric: 'm' },
      scroll_id: 'garbage',
    });
    expect(bad.body.meta).toMatchObject({
      result_code: 400,
      result_subcode: 1104,
      result_msg: 'Invalid scroll id: scroll_id=garbage',
    });
    const otherTask = await r.call('events.scalar_metrics_iter_raw', {
      task: big,
      metric: { metric: 'm' },
      scroll_id: mine.scroll_id,
    });
    expect(otherTask.body.meta.result_subcode).toBe(1104);
    const otherCompany = await r.call(
      'events.scalar_metrics_iter_raw',
      { task: other, metric: { metric: 'm' }, scroll_id: mine.scroll_id },
      r.tokenB,
    );
    expect(otherCompany.body.meta.result_subcode).toBe(1104);
    const tampered = mine.scroll_id.replace(/^./, (c: string) => (c === 'e' ? 'f' : 'e'));
    const t = await r.call('events.scalar_metrics_iter_raw', {
      task: small,
      metric: { metric: 'm' },
      scroll_id: tampered,
    });
    expect(t.body.meta.result_subcode).toBe(1104);
    // A get_task_events cursor is not a raw cursor.
    const events = await r.data('events.get_task_events', { task: small, batch_size: 1 });
    const wrongKind = await r.call('events.scalar_metrics_iter_raw', {
      task: small,
      metric: { metric: 'm' },
      scroll_id: events.scroll_id,
    });
    expect(wrongKind.body.meta.result_subcode).toBe(1104);
  });

  it('requires metric and a known task', async () => {
    const none = await r.call('events.scalar_metrics_iter_raw', { task: small });
    expect(none.body.meta.result_msg).toBe("Validation error (error for field 'metric'. field is required!)");
    const unknown = await r.call('events.scalar_metrics_iter_raw', { task: other, metric: { metric: 'm' } });
    expect(unknown.body.meta.result_msg).toBe(`Invalid task id: ids=(${other})`);
  });
});
