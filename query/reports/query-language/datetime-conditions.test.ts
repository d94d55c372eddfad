import { describe, expect, it } from 'vitest';
import { compileDateTimeCondition, compileRangeCondition, dateTimeTest } from './datetime-conditions.js';
import { parseDateTime } from './datetime-parse.js';
import { errorOf, idsMatching } from './test-records.js';
import type { StoredRecord } from './types.js';

const utc = (...parts: [number, number, number, number?, number?, number?, number?]) =>
  Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3] ?? 0, parts[4] ?? 0, parts[5] ?? 0, parts[6] ?? 0);

describe('date-time parsing (§4.6)', () => {
  it.each([
    ['2024-05-01', utc(2024, 5, 1)],
    ['2024-05-01T10:00', utc(2024, 5, 1, 10)],
    ['2024-05-01 10:00:00', utc(2024, 5, 1, 10)],
    ['2024-05-01T10:20:30.123456', utc(2024, 5, 1, 10, 20, 30, 123) + 0.456],
    ['2024-05-01T10:20:30Z', utc(2024, 5, 1, 10, 20, 30)],
    ['2024-05-01T10:20:30+02:00', utc(2024, 5, 1, 8, 20, 30)],
    ['2024-05-01T10:20:30-0130', utc(2024, 5, 1, 11, 50, 30)],
    ['2024-05-01T10:20:30.5+00:00', utc(2024, 5, 1, 10, 20, 30, 500)],
    ['2024-02-29', utc(2024, 2, 29)],
    ['1714557630', 1714557630000],
    ['1714557630.5', 1714557630500],
    [' 2024-05-01 ', utc(2024, 5, 1)],
  ])('%j', (text, ms) => {
    expect(parseDateTime(text)).toBeCloseTo(ms, 6);
  });

  it.each([['yesterday'], ['2024-13-01'], ['2023-02-29'], ['2024-05-01T25:00'], ['']])('rejects %j', (text) => {
    expect(parseDateTime(text)).toBeUndefined();
  });

  it('takes JSON numbers as epoch seconds', () => {
    expect(parseDateTime(1714557630)).toBe(1714557630000);
  });
});

const records: StoredRecord[] = [
  { id: 'apr', status_changed: utc(2024, 4, 30, 23, 59, 59) },
  { id: 'may1', status_changed: utc(2024, 5, 1) },
  { id: 'may15', status_changed: utc(2024, 5, 15, 12) },
  { id: 'jun1', status_changed: utc(2024, 6, 1) },
  { id: 'never' },
];
const matching = (value: unknown) => {
  const c = compileDateTimeCondition('status_changed', value);
  return c ? idsMatching(records, (r) => c.test(r)) : 'no condition';
};

describe('date-time conditions (§4.6)', () => {
  it('the contract example: [">=2024-05-01", "<2024-06-01T00:00:00Z"]', () => {
    expect(matching(['>=2024-05-01', '<2024-06-01T00:00:00Z'])).toEqual(['may1', 'may15']);
  });

  it('two values without prefixes are an inclusive range', () => {
    expect(matching(['2024-05-01', '2024-06-01'])).toEqual(['may1', 'may15', 'jun1']);
  });

  it('a null bound is unbounded; a null first bound admits records lacking the field', () => {
    expect(matching([null, '2024-05-01'])).toEqual(['apr', 'may1', 'never']);
    expect(matching(['2024-05-15', null])).toEqual(['may15', 'jun1']);
  });

  it('a single value without prefix means equality', () => {
    expect(matching('2024-05-01')).toEqual(['may1']);
    expect(matching(['2024-05-01T00:00:00+00:00'])).toEqual(['may1']);
  });

  it.each([
    ['>2024-05-01', ['may15', 'jun1']],
    ['<=2024-05-01', ['apr', 'may1']],
    ['<2024-05-01', ['apr']],
  ])('prefix %j', (value, expected) => {
    expect(matching(value)).toEqual(expected);
  });

  it('the later of two equal prefixes wins', () => {
    expect(matching(['>=2024-05-01', '>=2024-05-10', '<2024-07-01'])).toEqual(['may15', 'jun1']);
  });

  it('ignores unparseable values, and is no condition when nothing parses', () => {
    expect(matching(['>=garbage', '<2024-05-02'])).toEqual(['apr', 'may1']);
    expect(matching(['garbage'])).toBe('no condition');
    expect(matching(['x', 'y'])).toBe('no condition');
    expect(matching(null)).toBe('no condition');
  });

  it('numeric values are epoch seconds', () => {
    expect(matching([`>=${utc(2024, 5, 15) / 1000}`])).toEqual(['may15', 'jun1']);
  });

  it('exposes the bare test for multi-field conditions', () => {
    const test = dateTimeTest('>2024-01-01')!;
    expect(test(utc(2024, 2, 1))).toBe(true);
    expect(test(undefined)).toBe(false);
  });
});

describe('range conditions (§4.6)', () => {
  const tasks: StoredRecord[] = [
    { id: 'old', created: utc(2024, 1, 1), last_iteration: 0 },
    { id: 'mid', created: utc(2024, 5, 1), last_iteration: 10 },
    { id: 'new', created: utc(2024, 9, 1), last_iteration: 100 },
    { id: 'bare' },
  ];
  const range = (field: string, value: unknown, kind: 'datetime' | 'number') => {
    const c = compileRangeCondition(field, value, kind);
    return c ? idsMatching(tasks, (r) => c.test(r)) : 'no condition';
  };

  it('is inclusive on both ends', () => {
    expect(range('created', ['2024-05-01', '2024-09-01T00:00:00Z'], 'datetime')).toEqual(['mid', 'new']);
    expect(range('last_iteration', [0, 10], 'number')).toEqual(['old', 'mid']);
  });

  it('null is unbounded; a null min admits records lacking the field', () => {
    expect(range('created', [null, '2024-05-01'], 'datetime')).toEqual(['old', 'mid', 'bare']);
    expect(range('last_iteration', [10, null], 'number')).toEqual(['mid', 'new']);
    expect(range('last_iteration', ['5', null], 'number')).toEqual(['mid', 'new']);
  });

  it('absent or null is no condition', () => {
    expect(range('created', undefined, 'datetime')).toBe('no condition');
    expect(range('created', null, 'datetime')).toBe('no condition');
  });

  it.each([
    ['2024-01-01', 'Validation error (Min and max values should be specified for range field created)'],
    [['2024-01-01'], 'Validation error (Min and max values should be specified for range field created)'],
    [[1, 2, 3], 'Validation error (Min and max values should be specified for range field created)'],
    [[null, null], 'Validation error (At least one of min or max values should be provided for field created)'],
    [['soon', null], 'Validation error (Invalid range value for field created: soon)'],
  ])('400/12 for %j', (value, message) => {
    expect(errorOf(() => compileRangeCondition('created', value, 'datetime'))).toEqual({ code: '400/12', message });
  });

  it('400/12 for a non-numeric bound of a numeric range', () => {
    expect(errorOf(() => compileRangeCondition('last_iteration', ['x', 5], 'number')).message).toBe(
      'Validation error (Invalid range value for field last_iteration: x)',
    );
  });
});
