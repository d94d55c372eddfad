/**
 * Hiding of overwritten debug images (events.md §8.1, §8.2). The SDK reuses
 * file names, so an old event may point at a file that now holds a newer
 * image; both rules below derive, per (metric, variant), from which URLs
 * were used at which iterations.
 */
import { compareCodePoints } from '../common/code-point-order.js';

/** One image event of a variant, as far as validity is concerned. */
export interface ImageUse {
  readonly iter: number;
  readonly url: string;
}

interface UrlUses {
  /** Greatest and second-greatest iteration of the URL's events (equal when it occurs twice at the top). */
  first: number;
  second: number | undefined;
}

function usesByUrl(events: Iterable<ImageUse>): Map<string, UrlUses> {
  const byUrl = new Map<string, UrlUses>();
  for (const { iter, url } of events) {
    const uses = byUrl.get(url);
    if (uses === undefined) byUrl.set(url, { first: iter, second: undefined });
    else if (iter > uses.first) {
      uses.second = uses.first;
      uses.first = iter;
    } else if (uses.second === undefined || iter > uses.second) uses.second = iter;
  }
  return byUrl;
}

/**
 * §8.1 `last_invalid_iteration` of one variant: take the URL whose greatest
 * iteration is the highest (ties: the smallest URL); if it occurs in two or
 * more events, the iteration of the second of them in descending order;
 * otherwise undefined (nothing is invalid).
 */
export function lastInvalidIteration(events: Iterable<ImageUse>): number | undefined {
  let chosenUrl: string | undefined;
  let chosen: UrlUses | undefined;
  for (const [url, uses] of usesByUrl(events)) {
    if (
      chosen === undefined ||
      uses.first > chosen.first ||
      (uses.first === chosen.first && compareCodePoints(url, chosenUrl!) < 0)
    ) {
      chosen = uses;
      chosenUrl = url;
    }
  }
  return chosen?.second;
}

/** Whether §8.1 shows an image event, given its variant's last_invalid_iteration (undefined or null: none). */
export function isImageShown(iter: number, lastInvalid: number | null | undefined): boolean {
  return lastInvalid === undefined || lastInvalid === null || iter > lastInvalid;
}

export interface IterationRange {
  readonly min_iteration: number;
  readonly max_iteration: number;
}

/**
 * §8.2 variant range: max_iteration is the greatest iteration; min_iteration
 * the smallest over the URLs of their greatest iteration (anything older can
 * only show an overwritten file). Undefined when there are no events.
 */
export function variantIterationRange(events: Iterable<ImageUse>): IterationRange | undefined {
  let min: number | undefined;
  let max: number | undefined;
  for (const uses of usesByUrl(events).values()) {
    if (min === undefined || uses.first < min) min = uses.first;
    if (max === undefined || uses.first > max) max = uses.first;
  }
  return min === undefined || max === undefined ? undefined : { min_iteration: min, max_iteration: max };
}
