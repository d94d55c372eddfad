/**
 * Number cells of InfluxDB's CSV answers, as bytes: their values, and
 * whether their text is already what JSON.stringify writes for them
 * (scalar-csv-rows.ts copies those bytes instead of formatting the number).
 * InfluxDB writes CSV numbers as Go's strconv does: integers in full,
 * floats in shortest plain decimals (FormatFloat 'f', -1).
 */
import { safeIntegerText } from '../common/integer-text.js';

const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;

/** A value as JSON.stringify writes it inside an object (numbers of InfluxDB's text that need it). */
export function jsonNumber(text: string): string {
  if (text === 'true' || text === 'false') return text;
  return numberJson(Number(text));
}

/** A number as JSON.stringify writes it inside an object. */
export function numberJson(value: number): string {
  if (Number.isSafeInteger(value)) return safeIntegerText(value);
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * Whether InfluxDB's text of a number in [start, end) is what JSON.stringify writes for it: an
 * integer of at most 15 digits, or (floats) a plain decimal that is neither -0 nor beyond the
 * range where JavaScript switches to exponents (|x| < 1e-6, 22 or more integer digits).
 */
export function copiesAsIs(bytes: Buffer, start: number, end: number): boolean {
  let i = bytes[start] === MINUS ? start + 1 : start;
  const digits = i;
  while (i < end && bytes[i]! >= ZERO && bytes[i]! <= NINE) i++;
  const integerDigits = i - digits;
  if (integerDigits === 0) return false;
  if (i === end) return integerDigits <= 15 && !(integerDigits === 1 && bytes[digits] === ZERO && digits > start);
  if (bytes[i] !== DOT || integerDigits > 21 || i + 1 === end) return false;
  const fraction = i + 1;
  for (i = fraction; i < end; i++) if (bytes[i]! < ZERO || bytes[i]! > NINE) return false;
  if (bytes[digits] !== ZERO || integerDigits > 1) return true;
  // 0.xxx: JavaScript writes an exponent below 1e-6, that is after six zeros.
  let zeros = 0;
  while (zeros < 6 && bytes[fraction + zeros] === ZERO) zeros++;
  return zeros < 6;
}

/** The value of an integer text of at most 15 digits (exact), else NaN. */
function integerValue(bytes: Buffer, start: number, end: number): number {
  const negative = bytes[start] === MINUS;
  let i = negative ? start + 1 : start;
  if (i === end || end - i > 15) return Number.NaN;
  let value = 0;
  for (; i < end; i++) {
    const digit = bytes[i]! - ZERO;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return negative ? -value : value;
}

/** A number cell's value as the JSON answer would hold it (null for an empty cell). */
export function numberOf(bytes: Buffer, start: number, end: number): number | null {
  if (start === end) return null;
  const value = integerValue(bytes, start, end);
  return Number.isNaN(value) ? Number(bytes.toString('latin1', start, end)) : value;
}
