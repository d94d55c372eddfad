/**
 * The double a decimal of 16 or 17 significant digits names, and whether
 * String() of that double prints those digits again, from the digits alone:
 * for the plain scalar line's value (plain-scalar-line.ts), which Python's
 * repr of a float gives in 16 or 17 digits nearly always. Number() of a
 * string and String() of the double cost ~300 ns an event in all; this
 * costs a few dozen floating-point operations, and says when it cannot
 * decide (the caller then asks Number() and String()).
 *
 * The decimal is M / 10^scale, M an integer of 16 or 17 digits given as
 * `high`·10^8 + `low`. M is held exactly as a sum of two doubles (s + e),
 * q = s / 10^scale is a double near the value, and the remainder
 * M - q·10^scale, computed with error-free products, tells how many doubles
 * away the correctly rounded value is, unless it is too close to half a
 * spacing to tell (a tie, or nearly one: the caller decides).
 *
 * String() prints the shortest decimal that reads back as the double, and
 * of those the closest to it: the decimal's own digits when it is within
 * half a unit of its last digit of the double, and no decimal of one digit
 * fewer (a multiple of ten in units of M) lies within the double's rounding
 * interval. Doubles with a power-of-two significand (a lopsided interval)
 * and decimals near a power of ten (where shorter decimals are denser) are
 * left to the caller, as is anything within a margin of a boundary.
 */

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
/** The halves of a double in U32 (the platform's byte order). */
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LOW = LITTLE ? 0 : 1;
const HIGH = LITTLE ? 1 : 0;

/** Powers of ten exact as doubles. */
export const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);
/** 2^27 + 1: Veltkamp's splitter for doubles. */
const SPLITTER = 134_217_729;
/** s is within 8 of M and doubles here are at least 2^-3 apart in units of M, so q is at most a few doubles off. */
const MAX_STEPS = 8;
/** How close to a boundary counts as undecided: far above the few ulps of error the remainder carries. */
const MARGIN = 2 ** -30;

/** Whether `distance` is too close to `bound` to tell which side it is on. */
function undecided(distance: number, bound: number): boolean {
  return Math.abs(distance - bound) <= bound * MARGIN;
}

/** What `readDecimal` found. */
export const decimalRead = { value: 0, shortest: false };

/** The exact a·b - fl(a·b) (Dekker's product; no overflow at these magnitudes). */
function productError(a: number, b: number, product: number): number {
  let t = SPLITTER * a;
  const aHigh = t - (t - a);
  const aLow = a - aHigh;
  t = SPLITTER * b;
  const bHigh = t - (t - b);
  const bLow = b - bHigh;
  return aHigh * bHigh - product + aHigh * bLow + aLow * bHigh + aLow * bLow;
}

function hasPowerOfTwoSignificand(x: number): boolean {
  F64[0] = x;
  return U32[LOW] === 0 && (U32[HIGH]! & 0xfffff) === 0;
}

/** The next double up from a positive finite one. */
function nextUp(x: number): number {
  F64[0] = x;
  if (U32[LOW] === 0xffffffff) {
    U32[LOW] = 0;
    U32[HIGH]! += 1;
  } else U32[LOW]! += 1;
  return F64[0];
}

/** The next double down from a positive one without a power-of-two significand. */
function nextDown(x: number): number {
  F64[0] = x;
  if (U32[LOW] === 0) {
    U32[LOW] = 0xffffffff;
    U32[HIGH]! -= 1;
  } else U32[LOW]! -= 1;
  return F64[0];
}

/**
 * Reads (`high`·10^8 + `low`) / 10^`scale` into `decimalRead`: `value` the
 * correctly rounded double, `shortest` whether String(value) prints these
 * digits (given a plain format). `digits` is 16 or 17 (M's length, its last
 * digit not 0), `scale` at most 22. Answers false when it cannot decide.
 */
export function readDecimal(high: number, low: number, digits: number, scale: number): boolean {
  // Shorter decimals below a power of ten are ten times denser: not worth the care.
  if (high === POW10[digits - 9] && low < 100) return false;
  // high·10^8 = high·5^8·2^8 with high·5^8 < 2^53: exact; s + e = M exactly (s ≥ low).
  const whole = high * 1e8;
  const s = whole + low;
  const e = low - (s - whole);
  const scaleFactor = POW10[scale]!;
  const q = s / scaleFactor;
  if (hasPowerOfTwoSignificand(q)) return false;
  const product = q * scaleFactor;
  // M - q·10^scale: s - product is exact (they are within a few ulps: Sterbenz).
  const remainder = s - product - productError(q, scaleFactor, product) + e;
  // Half the spacing of doubles around q, in units of M (exact: a power of two times 10^scale).
  const half = ((nextUp(q) - q) * scaleFactor) / 2;
  // q can be a few doubles off (s is M rounded): step to the one within half a spacing.
  let value = q;
  let off = remainder;
  for (let steps = 0; Math.abs(off) > half; steps++) {
    if (steps === MAX_STEPS || undecided(Math.abs(off), half)) return false;
    value = off > 0 ? nextUp(value) : nextDown(value);
    if (hasPowerOfTwoSignificand(value)) return false;
    off = off > 0 ? off - 2 * half : off + 2 * half;
  }
  if (undecided(Math.abs(off), half)) return false;
  decimalRead.value = value;
  // M is the closest decimal of its length to the value, and neither multiple of ten next to M (one digit fewer) reads as it.
  const lastDigit = low % 10;
  const below = Math.abs(off - lastDigit);
  const above = Math.abs(off + 10 - lastDigit);
  if (undecided(Math.abs(off), 0.5) || undecided(below, half) || undecided(above, half)) return false;
  decimalRead.shortest = Math.abs(off) < 0.5 && below > half && above > half;
  return true;
}
