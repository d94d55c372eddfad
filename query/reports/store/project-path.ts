/** The reports project name for a base name (reports.md §1.3 steps 1-2), as path segments. */

export const REPORTS_BASENAME = '.reports';
const SLASH = 0x2f;

/**
 * `""` → `['.reports']`, `" A / B /"` → `['A', 'B', '.reports']`, `X/.reports` stays.
 * With a `limit`, stops once it has more than `limit` segments: a client's path may hold
 * millions of them (a 64 MiB body of `a/`), and a caller that refuses more than `limit`
 * needs no more than `limit + 1` of them.
 */
export function reportsProjectSegments(base: string, limit = Infinity): string[] {
  let start = 0;
  let end = base.length;
  while (start < end && base.charCodeAt(start) === SLASH) start++;
  while (end > start && base.charCodeAt(end - 1) === SLASH) end--;
  // The last segment decides before the whitespace around segments is trimmed ("A/ .reports" gets one more).
  const last = base.slice(Math.max(start, base.lastIndexOf('/', end - 1) + 1), end);
  const segments: string[] = [];
  for (let from = start; from <= end && segments.length <= limit;) {
    let to = base.indexOf('/', from);
    if (to === -1 || to > end) to = end;
    const segment = base.slice(from, to).trim();
    if (segment !== '') segments.push(segment);
    from = to + 1;
  }
  if (last !== REPORTS_BASENAME && segments.length <= limit) segments.push(REPORTS_BASENAME);
  return segments;
}

/** Reports projects are at most this many segments deep (reports.md §1.3). */
export const MAX_PROJECT_DEPTH = 10;

/** The full names of every prefix of a path: `['A', 'A/B', 'A/B/.reports']`. */
export function prefixNames(segments: readonly string[]): string[] {
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}

/** Length in code points, as the record validation counts it. */
export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}
