// The image index the writer keeps at write time (shared/events/image-index.ts, docs/storage.md "Image
// index"): the newest iterations of each variant with their files and URLs, and its §8.1
// last_invalid_iteration, applied with the summary: bounded, idempotent, in any order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SummaryApplier } from '../../ingest/writer/summary-applier.js';
import { normalizeEvent } from '../../ingest/events/event-normalizer.js';
import { EntitySummaryBuilder } from '../../ingest/events/request-summary.js';
import { lastInvalidIteration } from '../../query/events/debug-images/debug-image-validity.js';
import { IMAGE_INDEX_ITERATIONS, IMAGE_INDEX_MARKER, IMAGE_INDEX_URLS } from '../../shared/events/image-index.js';
import type { EntitySummary } from '../../shared/events/wire-format.js';
import { unique } from '../harness/service-harness.js';
import { writerPipeline } from './writer-fixtures.js';

const pipeline = writerPipeline();
const context = { receivedAt: 1_000, defaultWorker: 'w', allowLockedDefault: false };
const FIELD = JSON.stringify(['img', 'v']);

type Use = { iter: number; key: string; url: string };

/** The summary ingest builds for a request of these images (metric img, variant v). */
function requestSummary(task: string, uses: readonly Use[]): EntitySummary {
  const builder = new EntitySummaryBuilder('co', 't', task);
  for (const { iter, key, url } of uses)
    builder.add(
      normalizeEvent({ type: 'training_debug_image', task, metric: 'img', variant: 'v', iter, key, url }, context)
        .event!,
    );
  return builder.build('u', context.receivedAt);
}

const applier = () => new SummaryApplier(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
const index = (task: string) => pipeline.client.redis.hGetAll(pipeline.client.keys.imageIndex('co', 't', task));
const variantIndex = async (task: string) => JSON.parse((await index(task))[FIELD]!);

describe('the image index', () => {
  it('is kept at write time: the newest iterations with their images, bounded, and the validity', async () => {
    const task = unique('t');
    // Five files recycled over 40 iterations, one request per iteration.
    const a = applier();
    for (let i = 0; i < 40; i++)
      await a.apply(requestSummary(task, [{ iter: i, key: `f${i % 5}`, url: `u/f${i % 5}` }]), i + 1);
    const stored = await index(task);
    expect(stored[IMAGE_INDEX_MARKER]).toBe('1');
    const v = JSON.parse(stored[FIELD]!);
    expect(v.it.map(([iter]: [string]) => iter)).toEqual(
      Array.from({ length: IMAGE_INDEX_ITERATIONS }, (_, n) => String(39 - n)),
    );
    expect(v.it[0]).toEqual(['39', [['f4', 'u/f4']]]);
    expect(v.b).toBe(String(39 - IMAGE_INDEX_ITERATIONS));
    // u/f4 was used at 39 and before that at 34.
    expect(v.li).toBe('34');
  });

  it('re-applying a summary, or the same images in another request, changes nothing', async () => {
    const task = unique('t');
    const a = applier();
    const s = requestSummary(task, [
      { iter: 3, key: 'a', url: 'u/a' },
      { iter: 3, key: 'b', url: 'u/b' },
      { iter: 1, key: 'a', url: 'u/a' },
    ]);
    expect(await a.apply(s, 10)).toBe(true);
    const before = await index(task);
    const urls = await pipeline.client.redis.hGetAll(pipeline.client.keys.imageIndexUrls('co', 't', task));
    expect(await a.apply(s, 10)).toBe(false);
    expect(await a.apply(s, 11)).toBe(true); // a client sending the request again
    expect(await index(task)).toEqual(before);
    expect(await pipeline.client.redis.hGetAll(pipeline.client.keys.imageIndexUrls('co', 't', task))).toEqual(urls);
    expect(JSON.parse(before[FIELD]!)).toEqual({
      it: [
        [
          '3',
          [
            ['a', 'u/a'],
            ['b', 'u/b'],
          ],
        ],
        ['1', [['a', 'u/a']]],
      ],
      li: '1',
      n: 2,
    });
  });

  it('whatever the requests and their order, holds the newest iterations and the validity InfluxDB would give', async () => {
    // Each (iteration, key) has one url, as when the SDK names files by key: no image is replaced.
    const use = fc
      .tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 }))
      .map(([iter, k, u]): Use => ({ iter, key: `k${k}`, url: `u/${(iter * 7 + k * 3 + u) % 5}` }));
    const requests = fc.array(fc.array(use, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(requests, async (batches) => {
        const task = unique('t');
        const a = applier();
        const byPoint = new Map<string, Use>();
        // One url per (iteration, key): the first generated wins everywhere.
        const fixed = batches.map((batch) =>
          batch.map((u) => {
            const point = `${u.iter}/${u.key}`;
            if (!byPoint.has(point)) byPoint.set(point, u);
            return byPoint.get(point)!;
          }),
        );
        for (let i = 0; i < fixed.length; i++) await a.apply(requestSummary(task, fixed[i]!), i + 1);
        const all = [...byPoint.values()];
        const v = await variantIndex(task);
        const iterations = [...new Set(all.map((u) => u.iter))].sort((x, y) => y - x);
        const kept = iterations.slice(0, IMAGE_INDEX_ITERATIONS);
        expect(v.it.map(([iter]: [string]) => Number(iter))).toEqual(kept);
        for (const [iter, uses] of v.it as Array<[string, Array<[string, string]>]>)
          expect(new Set(uses.map(([k, u]) => `${k}=${u}`))).toEqual(
            new Set(all.filter((u) => u.iter === Number(iter)).map((u) => `${u.key}=${u.url}`)),
          );
        if (iterations.length > IMAGE_INDEX_ITERATIONS) expect(Number(v.b)).toBe(iterations[IMAGE_INDEX_ITERATIONS]);
        else expect(v.b).toBeUndefined();
        const expected = lastInvalidIteration(all.map(({ iter, url }) => ({ iter, url })));
        expect(v.li).toBe(expected === undefined ? false : String(expected));
      }),
      { numRuns: 40 },
    );
  });

  it('an image replaced by another URL leaves the validity to InfluxDB', async () => {
    const task = unique('t');
    const a = applier();
    await a.apply(requestSummary(task, [{ iter: 2, key: 'a', url: 'u/1' }]), 1);
    await a.apply(requestSummary(task, [{ iter: 2, key: 'a', url: 'u/2' }]), 2);
    const v = await variantIndex(task);
    expect(v.it).toEqual([['2', [['a', 'u/2']]]]);
    expect(v.li).toBeUndefined();
  });

  it('a variant with more URLs than are followed leaves its validity to InfluxDB', async () => {
    const task = unique('t');
    const a = applier();
    const perRequest = 100;
    for (let r = 0; r * perRequest <= IMAGE_INDEX_URLS; r++)
      await a.apply(
        requestSummary(
          task,
          Array.from({ length: perRequest }, (_, i) => ({ iter: r * perRequest + i, key: 'a', url: `u/${r}/${i}` })),
        ),
        r + 1,
      );
    const v = await variantIndex(task);
    expect(v.it).toHaveLength(IMAGE_INDEX_ITERATIONS);
    expect(v.li).toBeUndefined();
    expect(v.x).toBe(true);
  });

  it('is not kept for entities with events from before it, nor after a summary of an ingest that sends no images', async () => {
    const a = applier();
    const legacy = unique('t');
    await pipeline.client.redis.sAdd(
      pipeline.client.keys.metricListing('co', 't', legacy),
      'training_debug_image\u001fimg\u001fv\u001f1',
    );
    await a.apply(requestSummary(legacy, [{ iter: 1, key: 'a', url: 'u/a' }]), 1);
    expect(await index(legacy)).toEqual({ [IMAGE_INDEX_MARKER]: '0' });

    const task = unique('t');
    await a.apply(requestSummary(task, [{ iter: 1, key: 'a', url: 'u/a' }]), 1);
    expect((await index(task))[IMAGE_INDEX_MARKER]).toBe('1');
    const { images: _none, ...older } = requestSummary(task, [{ iter: 2, key: 'a', url: 'u/a' }]);
    await a.apply(older, 2);
    await a.apply(requestSummary(task, [{ iter: 3, key: 'a', url: 'u/a' }]), 3);
    expect(await index(task)).toEqual({ [IMAGE_INDEX_MARKER]: '0' });
    expect(await pipeline.client.redis.exists(pipeline.client.keys.imageIndexUrls('co', 't', task))).toBe(0);
  });

  it("keeps each company's index under its own keys", async () => {
    const task = unique('t');
    const a = applier();
    await a.apply(requestSummary(task, [{ iter: 1, key: 'a', url: 'u/a' }]), 1);
    await a.apply({ ...requestSummary(task, [{ iter: 9, key: 'b', url: 'u/b' }]), c: 'other' }, 2);
    expect((await variantIndex(task)).it).toEqual([['1', [['a', 'u/a']]]]);
    const theirs = await pipeline.client.redis.hGetAll(pipeline.client.keys.imageIndex('other', 't', task));
    expect(JSON.parse(theirs[FIELD]!).it).toEqual([['9', [['b', 'u/b']]]]);
  });
});
