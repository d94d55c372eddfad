/**
 * The decimal text of a safe integer, as String(n) writes it, several
 * times faster for integers beyond 32 bits: V8 formats those through its
 * general double-to-shortest path (~300 ns each on this machine, against
 * ~80 here), and epoch-millisecond timestamps, one or two per stored
 * event, are such integers (docs/performance.md, "Numbers as text").
 */
export function safeIntegerText(n: number): string {
  // Below 2^31 (and for -0, which String writes as "0") V8's own path is fast.
  if (n > -2147483648 && n < 2147483648) return String(n);
  if (n < 0) return `-${safeIntegerText(-n)}`;
  // Two halves of at most 9 digits, each small enough for the fast path. The quotient never
  // rounds up to the next integer: below 2^53 it is under 2^24, where half a unit in the last place
  // (< 1e-9) is smaller than the least distance to it (1e-9); the product is exact.
  const high = Math.floor(n / 1e9);
  const low = n - high * 1e9;
  const lowText = String(low);
  return `${high}${'000000000'.slice(lowText.length)}${lowText}`;
}
