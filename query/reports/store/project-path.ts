/** The reports project name for a base name (reports.md §1.3 steps 1-2), as path segments. */

export const REPORTS_BASENAME = '.reports';

/** `""` → `['.reports']`, `" A / B /"` → `['A', 'B', '.reports']`, `X/.reports` stays. */
export function reportsProjectSegments(base: string): string[] {
  let name = base.replace(/^\/+|\/+$/g, '');
  if (name.split('/').at(-1) !== REPORTS_BASENAME) name = `${name}/${REPORTS_BASENAME}`;
  return name
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '');
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
