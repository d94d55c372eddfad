/**
 * "Ascending by name" in the contract means Unicode code-point order
 * (events.md §0.6). JavaScript's `<` compares UTF-16 code units, which puts
 * astral characters (surrogate pairs) before U+E000..U+FFFF; this corrects it.
 */

/** Negative, zero or positive as `a` sorts before, equal to or after `b` in code-point order. */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) - codePointRank(y);
    return x - y;
  }
  return a.length - b.length;
}

// Moves surrogates (which stand for code points above U+FFFF) after U+E000..U+FFFF.
function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** Sorts a copy ascending in code-point order. */
export function sortedByCodePoints(values: Iterable<string>): string[] {
  return [...values].sort(compareCodePoints);
}
