/**
 * The recent-iteration index of debug images (docs/storage.md, "Image
 * index"): per (company, namespace, entity, metric, variant), kept by the
 * writer at write time, the newest iterations with the files and URLs used
 * at each, and the variant's §8.1 last_invalid_iteration. Every image file
 * is an InfluxDB series of its own and InfluxDB decodes a whole block of a
 * series to read one point, so the reads that could not name their files
 * (a fresh events.debug_images page, the validity of its variants) cost
 * what each file stores; with the index they name the exact series and
 * iterations they read.
 *
 * Iterations travel and are stored as the text of their point time
 * (iterTimeText): Redis' Lua numbers print 14 digits.
 */

/** Newest iterations kept per variant: a page asks for `iters` (the web UI 3) plus one. */
export const IMAGE_INDEX_ITERATIONS = 16;
/** Image uses (file, url) kept per variant over its kept iterations. */
export const IMAGE_INDEX_USES = 256;
/** Distinct URLs followed per variant (the SDK recycles 100 files per variant by default); beyond, validity is InfluxDB's. */
export const IMAGE_INDEX_URLS = 256;

/**
 * One image at an iteration: its key as stored (encodeTagValue; '' for
 * none) and its url. Images without url are not indexed: InfluxDB's
 * narrow reads do not return them either (a row whose selected fields are
 * all absent), and a point without url does not remove a stored url.
 */
export type ImageUse = [key: string, url: string];
/** An iteration's text and its images. */
export type IndexedIteration = [iter: string, uses: ImageUse[]];
/** A URL's greatest iteration, the key used there, and its second-greatest (the same when two keys share the top; false: none). */
export type UrlUses = [url: string, first: string, firstKey: string, second: string | false];

/** What one request adds to a variant's index (an R record's `images`). */
export interface VariantImageUses {
  m: string;
  v: string;
  /** The request's newest iterations of the variant, newest first, each with every image of it. */
  it: IndexedIteration[];
  /** The greatest iteration the request had but left out (too many iterations or images): absent when none. */
  b?: string;
  /** The two latest uses of each URL of the request (absent when `o`). */
  u: UrlUses[];
  /**
   * Validity cannot be kept: an image replaced another with a different URL
   * at the same (iteration, key), or the request had more than
   * IMAGE_INDEX_URLS URLs in the variant.
   */
  o?: 1;
}

/** A variant's index as the writer stores it (a field of the entity's image index hash, named JSON [metric, variant]). */
export interface StoredVariantIndex {
  /** Newest first; every iteration of the variant above `b` is here. Lua writes an empty list as `{}`. */
  it: IndexedIteration[] | Record<string, never>;
  /** Iterations at or below it may exist and are not kept. */
  b?: string;
  /** §8.1 last_invalid_iteration: text, false for none; absent when the index cannot tell. */
  li?: string | false;
  /** The variant's URLs followed (their uses are in the URL hash); absent once `x`. */
  n?: number;
  /** The URLs are no longer followed: `li` stays unknown. */
  x?: true;
}

/** Field of the index hash saying whether the index covers every image event of the entity ('1') or not ('0'). */
export const IMAGE_INDEX_MARKER = '~';
