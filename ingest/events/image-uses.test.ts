// What a request adds to the image index (shared/events/image-index.ts): bounded per variant, each
// URL's two latest uses, and images replaced by another URL flagged.
import { describe, expect, it } from 'vitest';
import { IMAGE_INDEX_ITERATIONS, IMAGE_INDEX_URLS, IMAGE_INDEX_USES } from '../../shared/events/image-index.js';
import { normalizeEvent, type NormalizedEvent } from './event-normalizer.js';
import { ImageUsesBuilder } from './image-uses.js';

const context = { receivedAt: 1_718_000_000_000, defaultWorker: 'w', allowLockedDefault: false };

function image(
  iter: number | undefined,
  key: string | undefined,
  url: string | undefined,
  variant = 'v',
): NormalizedEvent {
  return normalizeEvent({ type: 'training_debug_image', task: 't1', metric: 'm', variant, iter, key, url }, context)
    .event!;
}

const build = (events: NormalizedEvent[]) => {
  const builder = new ImageUsesBuilder();
  for (const e of events) builder.add(e);
  return builder.build();
};

describe('image uses of a request', () => {
  it('keeps the newest iterations of each variant, newest first, and says below which it left some out', () => {
    const events = Array.from({ length: 40 }, (_, i) => image(i, `f${i % 5}`, `u/f${i % 5}`));
    const [v] = build(events);
    expect(v!.it.map(([iter]) => iter)).toEqual(
      Array.from({ length: IMAGE_INDEX_ITERATIONS }, (_, i) => String(39 - i)),
    );
    expect(v!.it[0]).toEqual(['39', [['f4', 'u/f4']]]);
    expect(v!.b).toBe(String(39 - IMAGE_INDEX_ITERATIONS));
    // Every URL's two latest uses, over the whole request.
    expect(v!.u).toContainEqual(['u/f0', '35', 'f0', '30']);
    expect(v!.o).toBeUndefined();
  });

  it('bounds the images kept over the iterations, whole iterations only', () => {
    const perIteration = 100;
    const events = [0, 1, 2, 3].flatMap((iter) =>
      Array.from({ length: perIteration }, (_, k) => image(iter, `f${k}`, `u/${iter}/${k}`)),
    );
    const [v] = build(events);
    const kept = Math.floor(IMAGE_INDEX_USES / perIteration);
    expect(v!.it.map(([iter]) => iter)).toEqual(['3', '2', '1', '0'].slice(0, kept));
    expect(v!.b).toBe(String(3 - kept));
    // More URLs than are followed: validity is left to InfluxDB.
    expect(4 * perIteration).toBeGreaterThan(IMAGE_INDEX_URLS);
    expect(v!.o).toBe(1);
    expect(v!.u).toEqual([]);
  });

  it('counts a URL at one iteration twice only under two keys; a re-sent image is one use', () => {
    const [v] = build([image(5, 'a', 'u/x'), image(5, 'a', 'u/x'), image(3, 'a', 'u/y'), image(5, 'b', 'u/y')]);
    expect(v!.u).toEqual([
      ['u/x', '5', 'a', false],
      ['u/y', '5', 'b', '3'],
    ]);
    expect(build([image(5, 'a', 'u/x'), image(5, 'b', 'u/x')])[0]!.u).toEqual([['u/x', '5', 'a', '5']]);
    expect(build([image(5, 'a', 'u/x'), image(5, 'a', 'u/x')])[0]!.o).toBeUndefined();
  });

  it('flags an image replaced by another URL at the same iteration and key', () => {
    const [v] = build([image(5, 'a', 'u/x'), image(5, 'a', 'u/y')]);
    expect(v!.o).toBe(1);
    expect(v!.it).toEqual([['5', [['a', 'u/y']]]]);
  });

  it('leaves out images without url or iteration, and keeps keys as stored (encoded), "" for none', () => {
    expect(build([image(1, 'a', undefined), image(undefined, 'a', 'u/x')])).toEqual([]);
    const [v] = build([image(1, undefined, 'u/x'), image(1, 'line\nbreak', 'u/y')]);
    expect(v!.it[0]![1]).toEqual([
      ['', 'u/x'],
      [`~${Buffer.from('line\nbreak').toString('base64url')}`, 'u/y'],
    ]);
  });

  it('keeps each variant apart', () => {
    const variants = build([image(1, 'a', 'u/1', 'A'), image(2, 'a', 'u/2', 'B')]);
    expect(variants.map((v) => [v.m, v.v, v.it.length])).toEqual([
      ['m', 'A', 1],
      ['m', 'B', 1],
    ]);
  });
});
