/**
 * Date-time conditions (`status_changed`, `last_update`, `last_change`) and
 * range conditions (`created`, `started`, `active_duration`,
 * `last_iteration`) of reports.md §4.6.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { parseDateTime, storedTime } from './datetime-parse.js';
import type { RangeValueKind } from './field-catalogue.js';
import { pyStr } from './query-errors.js';
import type { Condition } from './types.js';

/** A test on a field's time (epoch ms; undefined when the record lacks it). */
export type TimeTest = (ms: number | undefined) => boolean;

const PREFIX = /^(>=|<=|>|<)/;
type Comparison = '>=' | '>' | '<=' | '<' | '=';

const COMPARE: Record<Comparison, (a: number, b: number) => boolean> = {
  '>=': (a, b) => a >= b,
  '>': (a, b) => a > b,
  '<=': (a, b) => a <= b,
  '<': (a, b) => a < b,
  '=': (a, b) => a === b,
};

function parseBound(value: unknown): number | undefined {
  return typeof value === 'string' || typeof value === 'number' ? parseDateTime(value) : undefined;
}

const hasPrefix = (v: unknown) => typeof v === 'string' && PREFIX.test(v.trimStart());

/**
 * The test of a date-time condition value (a string or an array of them);
 * undefined when nothing in it could be parsed (unparseable values are ignored).
 */
export function dateTimeTest(value: unknown): TimeTest | undefined {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 2 && !items.some(hasPrefix)) return rangeTest(items[0], items[1]);
  const comparisons = new Map<Comparison, number>();
  for (const item of items) {
    if (typeof item !== 'string' && typeof item !== 'number') continue;
    const text = String(item).trimStart();
    const op = (PREFIX.exec(text)?.[1] ?? '=') as Comparison;
    const ms = parseDateTime(op === '=' ? text : text.slice(op.length));
    if (ms !== undefined) comparisons.set(op, ms);
  }
  if (comparisons.size === 0) return undefined;
  const checks = [...comparisons].map(
    ([op, bound]) =>
      (ms: number) =>
        COMPARE[op](ms, bound),
  );
  return (ms) => ms !== undefined && checks.every((check) => check(ms));
}

function rangeTest(first: unknown, second: unknown): TimeTest | undefined {
  const lo = parseBound(first);
  const hi = parseBound(second);
  const admitMissing = first === null;
  if (lo === undefined && hi === undefined) return undefined;
  return (ms) => (ms === undefined ? admitMissing : (lo === undefined || ms >= lo) && (hi === undefined || ms <= hi));
}

export function compileDateTimeCondition(field: string, value: unknown): Condition | undefined {
  const test = dateTimeTest(value);
  return test === undefined ? undefined : { test: (record) => test(storedTime(record[field])) };
}

/**
 * A range condition `[min, max]`, inclusive, `null` = unbounded (a `null`
 * min also admits records lacking the field). Shape errors are 400/12.
 */
export function compileRangeCondition(field: string, value: unknown, kind: RangeValueKind): Condition | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length !== 2) {
    throw apiError('validation_error', `Min and max values should be specified for range field ${field}`);
  }
  const [min, max] = value as [unknown, unknown];
  if (min === null && max === null) {
    throw apiError('validation_error', `At least one of min or max values should be provided for field ${field}`);
  }
  const lo = rangeBound(field, min, kind);
  const hi = rangeBound(field, max, kind);
  const read = kind === 'datetime' ? storedTime : (v: unknown) => (typeof v === 'number' ? v : undefined);
  return {
    test(record) {
      const v = read(record[field]);
      if (v === undefined) return min === null;
      return (lo === undefined || v >= lo) && (hi === undefined || v <= hi);
    },
  };
}

function rangeBound(field: string, bound: unknown, kind: RangeValueKind): number | undefined {
  if (bound === null) return undefined;
  const parsed =
    kind === 'datetime'
      ? parseBound(bound)
      : typeof bound === 'number'
        ? bound
        : typeof bound === 'string' && bound.trim() !== '' && Number.isFinite(Number(bound))
          ? Number(bound)
          : undefined;
  if (parsed === undefined)
    throw apiError('validation_error', `Invalid range value for field ${field}: ${pyStr(bound)}`);
  return parsed;
}
