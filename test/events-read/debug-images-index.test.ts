// A fresh events.debug_images page read from the image index the writer keeps (docs/storage.md, "Image
// index") answers what the page read from InfluxDB alone answers, which is what data written before the
// index (no index, or one marked as not covering the task) gets; deleting a task's events clears it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { image as imageEvent } from '../harness/event-builders.js';
import { IMAGE_INDEX_ITERATIONS, IMAGE_INDEX_MARKER } from '../../shared/events/image-index.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

const image = (task: string, variant: string, iter: number, name: string) =>
  imageEvent(task, 'img', variant, iter, { url: `https://files.example.com/${name}`, key: name });

type Page = { scroll_id: string; metrics: Array<{ task: string; iterations: Array<{ iter: number; events: any[] }> }> };
const events = (page: Page) => page.metrics.map((m) => m.iterations);

const indexKey = (task: string) => f.keys.imageIndex(f.company('a'), 't', task);
const index = (task: string) => f.redis.hGetAll(indexKey(task));

/** Waits until the writer applied the task's summaries (its index has this many iterations of variant A). */
async function indexed(task: string, iterations: number): Promise<void> {
  await eventually(
    () => index(task),
    (stored) => {
      const a = stored[JSON.stringify(['img', 'A'])];
      return a !== undefined && JSON.parse(a).it.length === iterations;
    },
    { what: 'the image index' },
  );
}

/** A fresh page, then the pages after it through the state: everything a reader of the task sees. */
async function browse(task: string, iters: number, variants?: string[]): Promise<unknown[]> {
  const body = { metrics: [{ task, metric: 'img', ...(variants ? { variants } : {}) }], iters };
  const first: Page = await f.data('events.debug_images', body);
  const pages: unknown[] = [events(first)];
  for (let n = 0; n < 4; n++)
    pages.push(events(await f.data('events.debug_images', { ...body, scroll_id: first.scroll_id })));
  return pages;
}

describe('the image index behind a fresh debug_images page', () => {
  const task = unique('dix-');
  const iterations = 40;
  beforeAll(async () => {
    // A recycles 7 files, B 4 (the contract example, longer); two requests, the second out of order.
    const all = Array.from({ length: iterations }, (_, n) => [
      image(task, 'A', n, `A_${n % 7}`),
      image(task, 'B', n, `B_${n % 4}`),
    ]);
    await f.add(all.slice(20).flat());
    await f.add(all.slice(0, 20).flat());
    await indexed(task, IMAGE_INDEX_ITERATIONS);
  });

  it('is written through the pipeline: the newest iterations of each variant with their files, and the validity', async () => {
    const stored = await index(task);
    expect(stored[IMAGE_INDEX_MARKER]).toBe('1');
    const a = JSON.parse(stored[JSON.stringify(['img', 'A'])]!);
    expect(a.it[0]).toEqual(['39', [['A_4', 'https://files.example.com/A_4']]]);
    expect(a.b).toBe(String(iterations - 1 - IMAGE_INDEX_ITERATIONS));
    // A_4 was used at 39 and 32.
    expect(a.li).toBe('32');
  });

  it('answers what InfluxDB alone answers, for data without an index or with one not covering the task', async () => {
    const cases: Array<[number, string[] | undefined]> = [
      [1, undefined],
      [3, undefined],
      [5, ['B']],
      [IMAGE_INDEX_ITERATIONS - 1, undefined],
      // More than the index keeps: InfluxDB answers either way.
      [IMAGE_INDEX_ITERATIONS + 4, undefined],
    ];
    const withIndex = [];
    for (const [iters, variants] of cases) withIndex.push(await browse(task, iters, variants));
    const saved = await index(task);
    try {
      await f.redis.hSet(indexKey(task), IMAGE_INDEX_MARKER, '0');
      for (let i = 0; i < cases.length; i++) expect(await browse(task, ...cases[i]!)).toEqual(withIndex[i]);
      await f.redis.del(indexKey(task));
      for (let i = 0; i < cases.length; i++) expect(await browse(task, ...cases[i]!)).toEqual(withIndex[i]);
    } finally {
      await f.redis.hSet(indexKey(task), saved);
    }
    // The contract's rule, for the record: A at 39 uses A_4, last used before at 32, so 32 and older are hidden.
    const first = withIndex[1]![0] as Array<Array<{ iter: number; events: any[] }>>;
    expect(first[0]!.map((it) => it.iter)).toEqual([39, 38, 37]);
  });

  it('deleting the task events clears it, and the next events start a new one', async () => {
    const doomed = unique('dix-');
    await f.add([image(doomed, 'A', 1, 'A_1'), image(doomed, 'A', 2, 'A_1')]);
    await indexed(doomed, 2);
    await f.data('events.delete_for_task', { task: doomed });
    expect(await f.redis.exists([indexKey(doomed), f.keys.imageIndexUrls(f.company('a'), 't', doomed)])).toBe(0);
    await f.add([image(doomed, 'A', 7, 'A_7')]);
    await indexed(doomed, 1);
    expect(events(await f.data('events.debug_images', { metrics: [{ task: doomed }], iters: 3 }))).toEqual([
      [{ iter: 7, events: [expect.objectContaining({ iter: 7, url: 'https://files.example.com/A_7' })] }],
    ]);
  });
});
