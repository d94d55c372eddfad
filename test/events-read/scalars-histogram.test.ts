// events.scalar_metrics_iter_histogram and multi_task_scalar_metrics_iter_histogram (events.md §4.1, §4.2),
// with the min_max extension.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const worked = unique('worked-');
const mixed = unique('mixed-');
const grouped = unique('grouped-');
const stamps = unique('stamps-');
const spiky = unique('spiky-');
const empty = unique('empty-');
const huge = unique('huge-');
/** 2^1023: two of them add up beyond the largest double, while their mean is exact. */
const HUGE = 2 ** 1023;
const T0 = 1_718_000_000_000;
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

beforeAll(async () => {
  r = await startServiceFixture();
  await r.add([
    ...range(100).map((i) => scalar(worked, 'm', 'v', i, i)),
    // Excluded everywhere: a single value and an event without iteration in the same series.
    scalar(mixed, 'loss', 'train', -2147483648, 1000),
    scalar(mixed, 'loss', 'train', undefined, 2000),
    scalar(mixed, 'loss', 'train', 1, 1),
    // The label of the batch's latest event is recorded; the later overwrite without one keeps it.
    scalar(mixed, 'loss', 'train', 2, 2, { x_axis_label: 'epoch' }),
    scalar(mixed, 'loss', 'train', -7, 3),
    scalar(mixed, 'Summary', 'acc', -2147483648, 0.5),
    // Two series whose intervals (10 and 11) ClearML groups together.
    ...range(1000).map((i) => scalar(grouped, 'g', 'a', i, 1)),
    ...range(1100).map((i) => scalar(grouped, 'g', 'b', i, 2)),
    // Timestamps one second apart, values i.
    ...range(100).map((i) => scalar(stamps, 's', 'v', i, i, { timestamp: T0 + i * 1000 })),
    ...range(100).map((i) => scalar(spiky, 'p', 'v', i, i === 37 ? 1000 : i === 61 ? -500 : 1)),
    ...range(100).map((i) => scalar(huge, 'h', 'v', i, i % 10 === 9 ? -HUGE : HUGE, { timestamp: T0 + i * 1000 })),
  ]);
  // Same id as a model, with other data.
  await r.add([
    scalar(mixed, 'loss', 'train', 1, 42, { model_event: true }),
    scalar(empty, 'x', 'y', 1, 1, { model_event: true }),
  ]);
  // Overwrite iteration 2 of mixed.
  await r.add([scalar(mixed, 'loss', 'train', 2, 20)]);
  await Promise.all([
    untilCount(r, worked, 100),
    untilCount(r, grouped, 2100),
    untilCount(r, stamps, 100),
    untilCount(r, spiky, 100),
    untilCount(r, huge, 100),
    untilCount(r, mixed, 1, { model_events: true }),
  ]);
  await r.poll('events.scalar_metrics_iter_histogram', { task: mixed }, (d) => d.loss?.train?.y?.[2] === 20);
}, 120_000);
afterAll(async () => r?.stop());

const hist = (body: object) => r.data('events.scalar_metrics_iter_histogram', body);

describe('events.scalar_metrics_iter_histogram, key=iter', () => {
  it('follows the worked example of §4.1', async () => {
    for (const samples of [2000, 100, undefined]) {
      const d = await hist({ task: worked, samples });
      expect(d.m.v.x).toEqual(range(100));
      expect(d.m.v.y).toEqual(range(100));
      expect(d.m.v.name).toBe('v');
    }
    const ten = await hist({ task: worked, samples: 10 });
    expect(ten).toEqual({
      m: { v: { name: 'v', x: range(10).map((i) => i * 10), y: range(10).map((i) => i * 10 + 4.5) } },
    });
  });

  it('answers every point with samples 0', async () => {
    const d = await hist({ task: grouped, samples: 0 });
    expect(d.g.a.x).toHaveLength(1000);
    expect(d.g.b.x).toHaveLength(1100);
  });

  it("groups intervals as ClearML does: 10 and 11 share the group's 11", async () => {
    const d = await hist({ task: grouped, samples: 100 });
    expect(d.g.b.x.slice(0, 3)).toEqual([0, 11, 22]);
    expect(d.g.a.x.slice(0, 3)).toEqual([0, 11, 22]);
    expect(d.g.a.x).toHaveLength(Math.ceil(1000 / 11));
    expect(new Set(d.g.a.y)).toEqual(new Set([1]));
    expect(new Set(d.g.b.y)).toEqual(new Set([2]));
  });

  it('excludes single values and events without iteration, keeps overwrites and negative iterations, adds x_axis_label', async () => {
    const d = await hist({ task: mixed });
    expect(d).toEqual({ loss: { train: { name: 'train', x: [-7, 1, 2], y: [3, 1, 20], x_axis_label: 'epoch' } } });
  });

  it('buckets negative iterations toward minus infinity', async () => {
    const neg = unique('neg-');
    await r.add(range(30).map((i) => scalar(neg, 'n', 'v', i - 25, i - 25)));
    await untilCount(r, neg, 30);
    const d = await hist({ task: neg, samples: 3 });
    expect(d.n.v.x).toEqual([-30, -20, -10, 0]);
    expect(d.n.v.y).toEqual([-23, -15.5, -5.5, 2]);
  });

  it('applies the metrics filter', async () => {
    const d = await hist({ task: grouped, samples: 0, metrics: [{ metric: 'g', variants: ['b'] }] });
    expect(Object.keys(d.g)).toEqual(['b']);
    expect(await hist({ task: grouped, metrics: [{ metric: 'nothing' }] })).toEqual({});
  });

  it('keeps model events apart and answers {} without data', async () => {
    expect(await hist({ task: mixed, model_events: true })).toEqual({
      loss: { train: { name: 'train', x: [1], y: [42] } },
    });
    expect(await hist({ task: empty, model_events: true, metrics: [{ metric: 'none' }] })).toEqual({});
    const res = await r.call('events.scalar_metrics_iter_histogram', { task: empty });
    expect(res.body.meta.result_subcode).toBe(101);
  });
});

describe('events.scalar_metrics_iter_histogram, key=timestamp / iso_time', () => {
  const expected = (interval: number) => {
    const buckets = new Map<number, number[]>();
    for (const i of range(100)) {
      const ts = T0 + i * 1000;
      const key = Math.floor(ts / interval) * interval;
      buckets.set(key, [...(buckets.get(key) ?? []), i]);
    }
    const keys = [...buckets.keys()].sort((a, b) => a - b);
    return { x: keys, y: keys.map((k) => buckets.get(k)!.reduce((a, b) => a + b, 0) / buckets.get(k)!.length) };
  };

  it('buckets by timestamp aligned to the epoch', async () => {
    const d = await hist({ task: stamps, key: 'timestamp', samples: 10 });
    const interval = Math.ceil((99 * 1000 + 1) / 10);
    expect(d.s.v.x).toEqual(expected(interval).x);
    expect(d.s.v.y).toEqual(expected(interval).y);
    const all = await hist({ task: stamps, key: 'timestamp' });
    expect(all.s.v.x).toEqual(range(100).map((i) => T0 + i * 1000));
  });

  it('prints iso_time keys as ISO strings', async () => {
    const d = await hist({ task: stamps, key: 'iso_time', samples: 10 });
    const interval = Math.ceil((99 * 1000 + 1) / 10);
    expect(d.s.v.x).toEqual(expected(interval).x.map((ms) => new Date(ms).toISOString()));
    expect(d.s.v.x[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('excludes single values and events without iteration there too', async () => {
    const d = await hist({ task: mixed, key: 'timestamp' });
    expect(Object.keys(d)).toEqual(['loss']);
    // -7 and 1 share their receive time (same batch, no timestamp sent): one bucket, mean 2.
    expect(d.loss.train.y).toEqual([2, 20]);
  });
});

describe('the min_max extension', () => {
  it('adds per-bucket min and max only when asked', async () => {
    const plain = await hist({ task: spiky, samples: 10 });
    expect(plain.p.v.min).toBeUndefined();
    const d = await hist({ task: spiky, samples: 10, min_max: true });
    expect(d.p.v.max[3]).toBe(1000);
    expect(d.p.v.min[6]).toBe(-500);
    expect(d.p.v.min[0]).toBe(1);
    expect(d.p.v.y[3]).toBeCloseTo((9 + 1000) / 10);
    const byTime = await hist({ task: spiky, samples: 10, min_max: true, key: 'timestamp' });
    expect(Math.max(...byTime.p.v.max)).toBe(1000);
    const raw = await hist({ task: spiky, samples: 0, min_max: true });
    expect(raw.p.v.min).toEqual(raw.p.v.y);
  });
});

describe('values near the largest double', () => {
  // Each bucket of 10 holds nine 2^1023 and one -2^1023: its sum overflows on the way, its mean is 0.8 * 2^1023.
  const mean = ((9 * (HUGE / 2 ** 64) - HUGE / 2 ** 64) / 10) * 2 ** 64;

  it('averages buckets whose sum overflows a double, by iteration and across tasks', async () => {
    const d = await hist({ task: huge, samples: 10, min_max: true });
    expect(d.h.v.x).toEqual(range(10).map((i) => i * 10));
    expect(d.h.v.y).toEqual(range(10).map(() => mean));
    expect(d.h.v.min).toEqual(range(10).map(() => -HUGE));
    expect(d.h.v.max).toEqual(range(10).map(() => HUGE));
    const multi = await r.data('events.multi_task_scalar_metrics_iter_histogram', { tasks: [huge, huge], samples: 10 });
    expect(multi.metrics.h.v[huge].y).toEqual(range(10).map(() => mean));
  });

  it('and by timestamp: every bucket a number between its min and max', async () => {
    const d = await hist({ task: huge, samples: 10, min_max: true, key: 'timestamp' });
    expect(d.h.v.y.length).toBeGreaterThan(1);
    d.h.v.y.forEach((y: unknown, i: number) => {
      expect(typeof y).toBe('number');
      expect(y).toBeGreaterThanOrEqual(d.h.v.min[i]);
      expect(y).toBeLessThanOrEqual(d.h.v.max[i]);
    });
  });
});

describe('validation', () => {
  it('checks samples, key and task', async () => {
    const big = await r.call('events.scalar_metrics_iter_histogram', { task: worked, samples: 6001 });
    expect(big.body.meta.result_msg).toBe("Validation error ('6001' is bigger than maximum ('6000').)");
    const negative = await r.call('events.scalar_metrics_iter_histogram', { task: worked, samples: -1 });
    expect(negative.body.meta.result_msg).toBe("Validation error ('-1' is lower than minimum ('0').)");
    const key = await r.call('events.scalar_metrics_iter_histogram', { task: worked, key: 'epoch' });
    expect(key.body.meta.result_msg).toBe(`Validation error (value is wrong, expected type "scalarkeyenum" 'epoch')`);
    const none = await r.call('events.scalar_metrics_iter_histogram', {});
    expect(none.body.meta.result_subcode).toBe(12);
  });
});

describe('events.multi_task_scalar_metrics_iter_histogram', () => {
  it('regroups series by metric, variant and entity, named after the entity', async () => {
    const d = await r.data('events.multi_task_scalar_metrics_iter_histogram', {
      tasks: [worked, mixed, empty].slice(0, 2),
      samples: 10,
    });
    expect(d.metrics.m.v[worked]).toEqual({
      name: worked,
      x: range(10).map((i) => i * 10),
      y: range(10).map((i) => i * 10 + 4.5),
    });
    expect(d.metrics.loss.train[mixed]).toEqual({ name: mixed, x: [-7, 1, 2], y: [3, 1, 20], x_axis_label: 'epoch' });
    expect(Object.keys(d.metrics).sort()).toEqual(['loss', 'm']);
  });

  it('uses the entity name of the record', async () => {
    await r.redis.hSet(r.keys.task(r.h.credentials.a.company, grouped), 'name', 'grouped run');
    const d = await r.data('events.multi_task_scalar_metrics_iter_histogram', { task: [grouped], samples: 100 });
    expect(d.metrics.g.a[grouped].name).toBe('grouped run');
  });

  it('answers {"metrics": {}} without data and rejects unknown ids naming all of them', async () => {
    expect(
      await r.data('events.multi_task_scalar_metrics_iter_histogram', {
        tasks: [empty],
        model_events: true,
        metrics: [{ metric: 'z' }],
      }),
    ).toEqual({ metrics: {} });
    const res = await r.call('events.multi_task_scalar_metrics_iter_histogram', { tasks: [worked, 'unknown-x'] });
    expect(res.body.meta.result_msg).toBe(`Invalid task id: ids=(${worked}, unknown-x)`);
  });

  it('takes 1 to 100 entities', async () => {
    const ids = range(101).map((i) => `id${i}`);
    const res = await r.call('events.multi_task_scalar_metrics_iter_histogram', { tasks: ids });
    expect(res.body.meta.result_msg).toBe(
      `Validation error (value '[${ids.map((i) => `'${i}'`).join(', ')}]' length is bigger than allowed maximum '100'.)`,
    );
    const none = await r.call('events.multi_task_scalar_metrics_iter_histogram', { tasks: [] });
    expect(none.body.meta.result_msg).toBe("Validation error (value '[]' length is lower than allowed minimum '1'.)");
  });
});
