/**
 * What one request adds to the image index of its entity
 * (shared/events/image-index.ts): per variant, its newest iterations with
 * their images, and the two latest uses of each URL. Bounded like the
 * stored index, so a request of many images keeps little of them.
 */
import { encodeTagValue, iterTimeText } from '../../shared/events/storage-layout.js';
import {
  IMAGE_INDEX_ITERATIONS,
  IMAGE_INDEX_URLS,
  IMAGE_INDEX_USES,
  type UrlUses,
  type VariantImageUses,
} from '../../shared/events/image-index.js';
import { NestedKeyMap } from './nested-key-map.js';
import type { NormalizedEvent } from './event-normalizer.js';

/** Memory a new variant, iteration image or URL entry takes (rounded up; strings are shared with the event). */
const VARIANT_BYTES = 600;
const USE_BYTES = 120;
const URL_BYTES = 200;

interface UrlEntry {
  first: number;
  firstText: string;
  firstKey: string;
  second: number | undefined;
  secondText: string | false;
}

interface VariantUses {
  metric: string;
  variant: string;
  /** iteration (as InfluxDB will hold it) → its text and key → url */
  iterations: Map<number, { text: string; uses: Map<string, string> }>;
  uses: number;
  /** greatest iteration left out */
  floor: number | undefined;
  floorText: string | undefined;
  urls: Map<string, UrlEntry> | undefined;
  /** every (iteration, key) of the request and its url: an image replaced by another URL makes validity unknown */
  seen: Map<string, string>;
  overwritten: boolean;
}

export class ImageUsesBuilder {
  private readonly variants = new NestedKeyMap<VariantUses>();

  /** Adds an image event with an iteration and a url (image-index.ts, ImageUse); answers the bytes of state this created. */
  add(event: NormalizedEvent): number {
    const { url } = event;
    if (event.type !== 'training_debug_image' || event.iter === undefined || url === undefined) return 0;
    let created = 0;
    let v = this.variants.get(event.metric, event.variant);
    if (v === undefined) {
      v = {
        metric: event.metric,
        variant: event.variant,
        iterations: new Map(),
        uses: 0,
        floor: undefined,
        floorText: undefined,
        urls: new Map(),
        seen: new Map(),
        overwritten: false,
      };
      this.variants.set(event.metric, event.variant, v);
      created += VARIANT_BYTES;
    }
    const text = iterTimeText(event.iter);
    const iter = Number(text);
    const key = event.key === undefined ? '' : encodeTagValue(event.key);
    const point = `${text}\u0000${key}`;
    const before = v.seen.get(point);
    if (before === undefined) created += USE_BYTES;
    else if (before !== url) v.overwritten = true;
    v.seen.set(point, url);
    if (v.floor === undefined || iter > v.floor) created += addToIterations(v, iter, text, key, url);
    if (v.urls !== undefined) {
      const entry = v.urls.get(url);
      if (entry === undefined) {
        v.urls.set(url, { first: iter, firstText: text, firstKey: key, second: undefined, secondText: false });
        created += URL_BYTES;
        // Beyond the cap the URLs cannot all be followed: validity falls back to InfluxDB.
        if (v.urls.size > IMAGE_INDEX_URLS) v.urls = undefined;
      } else addUse(entry, iter, text, key);
    }
    return created;
  }

  build(): VariantImageUses[] {
    return [...this.variants.values()].map((v) => ({
      m: v.metric,
      v: v.variant,
      it: [...v.iterations]
        .sort(([a], [b]) => b - a)
        .map(([, { text, uses }]) => [text, [...uses]] as [string, Array<[string, string]>]),
      ...(v.floorText === undefined ? {} : { b: v.floorText }),
      u:
        v.urls === undefined
          ? []
          : [...v.urls].map(([url, e]): UrlUses => [url, e.firstText, e.firstKey, e.secondText]),
      ...(v.urls === undefined || v.overwritten ? { o: 1 as const } : {}),
    }));
  }
}

function addToIterations(v: VariantUses, iter: number, text: string, key: string, url: string): number {
  let at = v.iterations.get(iter);
  let created = 0;
  if (at === undefined) v.iterations.set(iter, (at = { text, uses: new Map() }));
  if (!at.uses.has(key)) {
    v.uses++;
    created += USE_BYTES;
  }
  at.uses.set(key, url);
  // The lowest iterations go first: what is kept stays every iteration above the floor.
  while (v.iterations.size > IMAGE_INDEX_ITERATIONS || v.uses > IMAGE_INDEX_USES) {
    let lowest = Number.POSITIVE_INFINITY;
    for (const i of v.iterations.keys()) if (i < lowest) lowest = i;
    const dropped = v.iterations.get(lowest)!;
    v.uses -= dropped.uses.size;
    v.iterations.delete(lowest);
    if (v.floor === undefined || lowest > v.floor) {
      v.floor = lowest;
      v.floorText = dropped.text;
    }
  }
  return created;
}

/** The URL used again at (iter, key): its two latest distinct uses stay known. */
function addUse(e: UrlEntry, iter: number, text: string, key: string): void {
  if (iter > e.first) {
    e.second = e.first;
    e.secondText = e.firstText;
    e.first = iter;
    e.firstText = text;
    e.firstKey = key;
  } else if (iter === e.first) {
    if (key !== e.firstKey) {
      e.second = iter;
      e.secondText = text;
    }
  } else if (e.second === undefined || iter > e.second) {
    e.second = iter;
    e.secondText = text;
  }
}
