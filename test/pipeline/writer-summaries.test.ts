// Entity summaries (events.md §1.11) applied in stream order, atomically and idempotently.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SummaryApplier } from '../../ingest/writer/summary-applier.js';
import type { EntitySummary, ScalarStats } from '../../shared/events/wire-format.js';
import { MAX_ITER_FIELD } from '../../shared/events/storage-layout.js';
import { unique } from '../harness/service-harness.js';
import { summaryRecord, writerPipeline } from './writer-fixtures.js';

const pipeline = writerPipeline();

const stats = (over: Partial<ScalarStats>): ScalarStats => ({
  metric: 'loss',
  variant: 'train',
  value: 0,
  iter: 0,
  timestamp: 1,
  min: 0,
  minIter: 0,
  max: 0,
  maxIter: 0,
  first: 0,
  firstIter: 0,
  count: 1,
  sum: 0,
  ...over,
});

const summary = (e: string, over: Partial<EntitySummary>): EntitySummary => ({
  c: 'co',
  n: 't',
  e,
  u: 'u1',
  at: 1000,
  scalars: [],
  listing: [],
  ...over,
});

describe('entity summaries', () => {
  it('merge last_metrics across requests as §1.11 says', async () => {
    const task = unique('t');
    await pipeline.client.publish(task, [
      summaryRecord(
        summary(task, {
          at: 5000,
          u: 'alice',
          lastIter: 10,
          scalars: [
            stats({
              value: 0.1,
              iter: 10,
              timestamp: 111,
              min: 0.1,
              minIter: 10,
              max: 0.9,
              maxIter: 1,
              first: 0.9,
              firstIter: 1,
              count: 3,
              sum: 1.5,
              x_axis_label: 'epoch',
            }),
          ],
          listing: [['training_stats_scalar', 'loss', 'train', 1]],
        }),
      ),
    ]);
    await pipeline.client.publish(task, [
      summaryRecord(
        summary(task, {
          at: 4000, // an older receive time: last_update must not go back
          u: 'bob',
          lastIter: 2,
          scalars: [
            stats({
              value: 0.3,
              iter: 2,
              timestamp: 222,
              min: 0.05,
              minIter: 3,
              max: 0.3,
              maxIter: 2,
              first: 0.3,
              firstIter: 2,
              count: 2,
              sum: 0.35,
            }),
          ],
          listing: [
            ['training_stats_scalar', 'loss', 'train', 1],
            ['plot', 'roc', 'c\u001f1', 0],
          ],
        }),
      ),
    ]);
    await pipeline.client.drained();
    const record = await pipeline.client.redis.hGetAll(pipeline.client.keys.entity('co', 't', task));
    expect(record).toMatchObject({
      last_update: '5000',
      last_change: '5000',
      last_changed_by: 'alice',
      last_iteration: '10',
    });
    const lm = await pipeline.client.redis.hGetAll(pipeline.client.keys.lastMetrics('co', 't', task));
    expect(Object.keys(lm)).toEqual([JSON.stringify(['loss', 'train'])]);
    const value = JSON.parse(lm[JSON.stringify(['loss', 'train'])]!);
    expect(value).toEqual({
      metric: 'loss',
      variant: 'train',
      value: 0.3, // the later request wins even with a smaller iteration
      iter: 2,
      timestamp: 222,
      min_value: 0.05,
      min_value_iteration: 3,
      max_value: 0.9,
      max_value_iteration: 1,
      first_value: 0.9,
      first_value_iteration: 1,
      count: 5,
      mean_value: 0.37, // (1.5 + 0.35) / 5
      x_axis_label: 'epoch', // not erased by a request without one
    });
    expect((await pipeline.client.redis.sMembers(pipeline.client.keys.metricListing('co', 't', task))).sort()).toEqual([
      'plot\u001froc\u001fc\u001f1\u001f0',
      'training_stats_scalar\u001floss\u001ftrain\u001f1',
    ]);
  });

  it('re-applying a summary (redelivery) changes nothing; doubles round-trip exactly', async () => {
    const task = unique('t');
    const applier = new SummaryApplier(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
    const s = summary(task, {
      lastIter: 7,
      scalars: [
        stats({
          value: 0.1 + 0.2,
          min: 1 / 3,
          max: 123456.78901234567,
          first: -2.5e-300,
          count: 1,
          sum: 0.1 + 0.2,
          iter: 7,
          x_axis_label: 'a/b "q"',
        }),
      ],
    });
    expect(await applier.apply(s, 100)).toBe(true);
    const before = await pipeline.client.redis.hGetAll(pipeline.client.keys.lastMetrics('co', 't', task));
    expect(await applier.apply(s, 100)).toBe(false);
    expect(await applier.apply(s, 99)).toBe(false);
    expect(await pipeline.client.redis.hGetAll(pipeline.client.keys.lastMetrics('co', 't', task))).toEqual(before);
    const value = JSON.parse(Object.values(before)[0]!);
    expect(value).toMatchObject({
      value: 0.1 + 0.2,
      min_value: 1 / 3,
      max_value: 123456.78901234567,
      first_value: -2.5e-300,
      mean_value: 0.3,
      count: 1,
      x_axis_label: 'a/b "q"',
    });
    expect(await pipeline.client.redis.hGet(pipeline.client.keys.entity('co', 't', task), 'summary_seq')).toBe('100');
    // A second summary for the same entity later in the same message has a higher arrival seq and applies.
    expect(
      await applier.apply(
        summary(task, { lastIter: 9, scalars: [stats({ value: 4, count: 1, sum: 4, min: 4, max: 4, first: 4 })] }),
        101,
      ),
    ).toBe(true);
    const after = JSON.parse(
      Object.values(await pipeline.client.redis.hGetAll(pipeline.client.keys.lastMetrics('co', 't', task)))[0]!,
    );
    expect(after).toMatchObject({
      value: 4,
      count: 2,
      mean_value: 2.15,
      min_value: 1 / 3,
      max_value: 123456.78901234567,
      first_value: -2.5e-300,
    });
    expect(await pipeline.client.redis.hGet(pipeline.client.keys.entity('co', 't', task), 'last_iteration')).toBe('9');
  });

  it("keeps the entity's greatest iteration from its first summary on: out of order, '' while none, never for earlier data or after a summary without it", async () => {
    const applier = new SummaryApplier(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
    const kept = (task: string) =>
      pipeline.client.redis.hGet(pipeline.client.keys.entity('co', 't', task), MAX_ITER_FIELD);
    const listed: Pick<EntitySummary, 'listing'> = { listing: [['training_stats_scalar', 'loss', 'train', 1]] };
    const task = unique('t');
    await applier.apply(summary(task, { ...listed, maxIter: null }), 1);
    expect(await kept(task)).toBe('');
    await applier.apply(summary(task, { ...listed, maxIter: 10 }), 2);
    await applier.apply(summary(task, { ...listed, maxIter: 3 }), 3);
    await applier.apply(summary(task, { ...listed, maxIter: null }), 4);
    expect(await kept(task)).toBe('10');
    await applier.apply(summary(task, { ...listed, maxIter: -2147483648 }), 5);
    await applier.apply(summary(task, { ...listed, maxIter: 2 ** 60 }), 6);
    expect(Number(await kept(task))).toBe(2 ** 60);
    // A summary of an ingest that does not send it: unknown from then on.
    await applier.apply(summary(task, listed), 7);
    await applier.apply(summary(task, { ...listed, maxIter: 2 ** 61 }), 8);
    expect(await kept(task)).toBeNull();

    // An entity with events from before the writer kept it is never kept.
    const legacy = unique('t');
    await pipeline.client.redis.sAdd(
      pipeline.client.keys.metricListing('co', 't', legacy),
      'plot\u001fp\u001fv\u001f1',
    );
    await applier.apply(summary(legacy, { ...listed, maxIter: 5 }), 1);
    expect(await kept(legacy)).toBeNull();

    // Chunks of one summary (more than 1,000 scalars) keep it as one summary does.
    const chunked = unique('t');
    const many = Array.from({ length: 1500 }, (_, i) => stats({ variant: `v${i}` }));
    await applier.apply(
      summary(chunked, {
        scalars: many,
        listing: many.map((m) => ['training_stats_scalar', 'loss', m.variant, 1] as [string, string, string, 1]),
        maxIter: 42,
      }),
      1,
    );
    expect(await kept(chunked)).toBe('42');
  });

  it('any sequence of finite summaries leaves last_metrics finite, readable JSON, with the mean between min and max', async () => {
    const applier = new SummaryApplier(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
    const finite = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE),
    );
    const request = fc.tuple(finite, finite, fc.integer({ min: 1, max: 1e6 })).map(([a, b, count]) => {
      const [min, max] = a <= b ? [a, b] : [b, a];
      const sum = min * count; // overflows for the extremes, as the ingest sum does
      return stats({
        value: max,
        min,
        max,
        first: min,
        count,
        sum,
        ...(Number.isFinite(sum) ? {} : { mean: min / 2 + max / 2 }),
      });
    });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 4 }), async (requests) => {
        const task = unique('t');
        for (let i = 0; i < requests.length; i++)
          expect(await applier.apply(summary(task, { scalars: [requests[i]!] }), 1000 + i)).toBe(true);
        const stored = JSON.parse(
          (await pipeline.client.redis.hGet(
            pipeline.client.keys.lastMetrics('co', 't', task),
            JSON.stringify(['loss', 'train']),
          ))!,
        );
        const min = Math.min(...requests.map((r) => r.min));
        const max = Math.max(...requests.map((r) => r.max));
        expect(stored.count).toBe(requests.reduce((n, r) => n + r.count, 0));
        // JSON has no -0 (JSON.stringify(-0) is "0"): compare as numbers, where -0 + 0 is +0
        expect(stored.min_value + 0).toBe(min + 0);
        expect(stored.max_value + 0).toBe(max + 0);
        expect(Number.isFinite(stored.mean_value)).toBe(true);
        // mean_value is rounded to 2 decimals
        expect(stored.mean_value).toBeGreaterThanOrEqual(min - 0.005 - Math.abs(min) * 1e-15);
        expect(stored.mean_value).toBeLessThanOrEqual(max + 0.005 + Math.abs(max) * 1e-15);
      }),
      { numRuns: 40 },
    );
  });
});
