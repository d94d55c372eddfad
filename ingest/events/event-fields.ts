/**
 * Reading and checking the fields of one client event (events.md §1.3 steps
 * 6-10 and the limits of event-limits.ts). Every function takes any value a
 * client can send and answers in bounded time without walking it: no
 * String() of containers, no regex before a length check, and only the
 * event's own properties are read.
 */
import {
  ITER_LIMIT,
  MAX_ENTITY_ID_LENGTH,
  MAX_NUMERIC_STRING_LENGTH,
  MAX_TIMESTAMP,
  MAX_VECTOR_LENGTH,
  MIN_ITER,
  MIN_TIMESTAMP,
  REASON,
  invalidField,
  tooLong,
} from './event-limits.js';

export type RawEvent = Record<string, unknown>;

export const isAbsent = (v: unknown): v is null | undefined => v === undefined || v === null;

/**
 * `value` (read by the caller as `raw.<name>`) when it is an own property of
 * the event: inherited ones (from a polluted Object.prototype, or an object
 * built on another) are never used. The check runs only for present fields.
 * Callers read the property by name, not `raw[name]` here: one keyed load
 * for every field name would make its inline cache megamorphic, which cost
 * ~1 µs an event.
 */
export function own(raw: RawEvent, name: string, value: unknown): unknown {
  return value === undefined || Object.hasOwn(raw, name) ? value : undefined;
}

/** ES2024's String.prototype.isWellFormed (Node 20), beyond the project's ES2023 lib. */
type WellFormedCheck = string & { isWellFormed(): boolean };

/** Per field name: the reasons for a non-string (or not valid Unicode) and an over-long value. */
interface TextRule {
  cap: number;
  invalid: string;
  tooLong: string;
}

const rules = new Map<string, TextRule>();
export function textRule(name: string, cap: number): TextRule {
  let rule = rules.get(name);
  if (rule === undefined) rules.set(name, (rule = { cap, invalid: invalidField(name), tooLong: tooLong(name, cap) }));
  return rule;
}

/**
 * Step 9 for one string field: undefined when it is acceptable (or absent),
 * else the reason. Lone surrogates are refused: they cannot be stored as sent
 * (UTF-8 turns them into U+FFFD, so two names would share one series, and the
 * writer's Lua JSON decoder refuses them).
 */
export function textError(value: unknown, rule: TextRule): string | undefined {
  if (isAbsent(value)) return undefined;
  if (typeof value !== 'string') return rule.invalid;
  if (value.length > rule.cap) return rule.tooLong;
  // O(1) for one-byte strings; a scan only for strings holding non-Latin-1 characters.
  return (value as WellFormedCheck).isWellFormed() ? undefined : rule.invalid;
}

/** Characters of ClearML ids (server-generated uuid4 hex) and more: letters, digits, `_`, `.`, `-`. */
const ID_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-') ID_CHAR[c.charCodeAt(0)] = 1;

/**
 * The last id found well-formed: a request's events name the same entity
 * over and over, and comparing with it (JSON.parse interns short strings, so
 * usually the same string) costs a tenth of the character scan. It starts as
 * a well-formed id: starting as '' made the first empty id of a process pass.
 */
let lastWellFormedId = '0';

/** Step 6 without the store: a non-empty string of at most 128 id characters. */
export function isWellFormedId(value: unknown): value is string {
  if (value === lastWellFormedId) return true;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ENTITY_ID_LENGTH) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128 || ID_CHAR[code] === 0) return false;
  }
  lastWellFormedId = value;
  return true;
}

const INT_STRING = /^\s*[+-]?\d+\s*$/;
// Unambiguous (no two ways to match a digit run), so it runs in linear time.
const FLOAT_STRING = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

const numericString = (value: string, pattern: RegExp): boolean =>
  value.length <= MAX_NUMERIC_STRING_LENGTH && pattern.test(value);

/** Step 7: the iteration, undefined when absent, or the reason. */
export function parseIter(value: unknown): number | undefined | string {
  if (isAbsent(value)) return undefined;
  let iter: number;
  if (typeof value === 'number' && !Number.isNaN(value)) iter = Math.trunc(value);
  else if (typeof value === 'string' && numericString(value, INT_STRING)) iter = Number(value);
  else return invalidField('iter');
  if (iter >= ITER_LIMIT || iter < -ITER_LIMIT) return REASON.iterAbove;
  if (iter < MIN_ITER) return REASON.iterBelow;
  return iter === 0 ? 0 : iter;
}

const HAS_ZONE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;
const DATE_PREFIX = /^\d{4}-\d{2}-\d{2}/;
/** An offset of hours alone after a time (`+02`): ISO-8601, but JavaScript wants the minutes. */
const HOURS_OFFSET = /(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)[+-]\d{2}$/;
/** ISO-8601's decimal comma before a fraction of a second. */
const DECIMAL_COMMA = /(:\d{2}),(\d)/;
/** Longest ISO-8601 date-time worth parsing (nanosecond fractions and a zone fit easily). */
const MAX_DATE_TIME_LENGTH = 64;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether `YYYY-MM-DD` at the start of `text` names a day of the calendar (JavaScript rolls 2024-02-30 over to 1 March). */
function isCalendarDate(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** A timestamp value as epoch ms (fractions truncated), NaN when it is not one (step 8). */
export function parseTimestamp(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) || 0 : Number.NaN;
  if (typeof value !== 'string') return Number.NaN;
  if (numericString(value, FLOAT_STRING)) {
    const ms = Number(value);
    return Number.isFinite(ms) ? Math.trunc(ms) || 0 : Number.NaN;
  }
  let text = value.trim();
  if (text.length > MAX_DATE_TIME_LENGTH || !DATE_PREFIX.test(text) || !isCalendarDate(text)) return Number.NaN;
  text = text.replace(DECIMAL_COMMA, '$1.$2');
  if (HOURS_OFFSET.test(text)) text += ':00';
  // A date-time without a zone is UTC (JavaScript would read it as local time).
  const withZone = text.length > 10 && !HAS_ZONE.test(text) ? `${text.replace(' ', 'T')}Z` : text.replace(' ', 'T');
  const ms = Date.parse(withZone);
  return Number.isFinite(ms) ? ms : Number.NaN;
}

/** Step 8 with the range check: epoch ms, or the reason. */
export function checkedTimestamp(value: unknown): number | string {
  // `+ 0` turns -0 into 0 (stored and read back as 0).
  const ms = typeof value === 'number' && Number.isSafeInteger(value) ? value + 0 : parseTimestamp(value);
  if (Number.isNaN(ms)) return invalidField('timestamp');
  return ms < MIN_TIMESTAMP || ms > MAX_TIMESTAMP ? REASON.timestampRange : ms;
}

/** Step 10, scalars: a finite number, undefined when absent, or the reason. */
export function parseScalar(value: unknown): number | undefined | string {
  if (isAbsent(value)) return undefined;
  // -0 is stored (and read back) as 0.
  if (typeof value === 'number') return Number.isFinite(value) ? value || 0 : invalidField('value');
  if (typeof value === 'string' && numericString(value, FLOAT_STRING)) {
    // "1e999" matches the grammar but is no double: Infinity reaches no store.
    const number = Number(value);
    if (Number.isFinite(number)) return number || 0;
  }
  return invalidField('value');
}

/** Step 10, vectors: an array of finite numbers, undefined when absent, or the reason. */
export function parseValues(value: unknown): number[] | undefined | string {
  if (isAbsent(value)) return undefined;
  if (!Array.isArray(value)) return invalidField('values');
  if (value.length > MAX_VECTOR_LENGTH) return REASON.vectorLength;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'number' || !Number.isFinite(item)) return invalidField('values');
    // -0 is stored (and read back) as 0; the array is this request's own.
    if (item === 0) value[i] = 0;
  }
  return value as number[];
}
