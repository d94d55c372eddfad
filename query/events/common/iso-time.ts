/** ISO-8601 UTC timestamps with milliseconds, the form of `@timestamp` and of `key=iso_time` x values (events.md §0.6, §4.1). */

/** `1718000000000` -> `"2024-06-10T06:13:20.000Z"` (always three digits of milliseconds; fractions of a millisecond are dropped). */
export function epochMsToIso(epochMs: number): string {
  return new Date(Math.trunc(epochMs)).toISOString();
}

// Date, optional time (minutes required, seconds and fraction optional), optional zone.
const ISO_DATE_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/;

/**
 * Parses an ISO-8601 date or date-time into epoch ms (fraction truncated to
 * milliseconds); a missing zone means UTC. Undefined when not ISO-8601 or
 * not a real calendar time (Date.parse is deliberately not used: it accepts
 * many other, engine-specific forms).
 */
export function isoToEpochMs(text: string): number | undefined {
  const m = ISO_DATE_TIME.exec(text.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, zh = '0', zm = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || Number(zh) > 23 || Number(zm) > 59) return undefined;
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const offsetMinutes = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  const epochMs = date.getTime() - offsetMinutes * 60_000;
  return Number.isFinite(epochMs) ? epochMs : undefined;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}
