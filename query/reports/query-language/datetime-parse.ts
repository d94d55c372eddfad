/**
 * Parsing of date-time values in query conditions (reports.md §4.6): ISO 8601
 * and similar forms, no zone = UTC, a date alone = midnight, and a purely
 * numeric value = seconds since the Unix epoch.
 */

const ISO =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt ](\d{1,2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
// Written so that no two quantifiers can share a digit: `\d+\.?\d*` rescanned runs of digits (quadratic).
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Epoch milliseconds, or undefined when the text is not a date-time. */
export function parseDateTime(input: string | number): number | undefined {
  if (typeof input === 'number') return Number.isFinite(input) ? input * 1000 : undefined;
  const text = input.trim();
  if (NUMERIC.test(text)) return Number(text) * 1000;
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fractionMs = m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getTime() + fractionMs - zoneOffsetMinutes(m[8]) * 60_000;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function zoneOffsetMinutes(zone: string | undefined): number {
  if (zone === undefined || !/^[+-]/.test(zone)) return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return zone.startsWith('-') ? -minutes : minutes;
}

/** A stored date-time (epoch ms; ISO strings and Dates tolerated) as epoch ms. */
export function storedTime(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseDateTime(value);
  if (value instanceof Date) return value.getTime();
  return undefined;
}
