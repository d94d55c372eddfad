import { describe, expect, it } from 'vitest';
import { epochMsToIso, isoToEpochMs } from './iso-time.js';

describe('epochMsToIso', () => {
  it('always prints three digits of milliseconds', () => {
    expect(epochMsToIso(1718000000000)).toBe('2024-06-10T06:13:20.000Z');
    expect(epochMsToIso(1718000000200)).toBe('2024-06-10T06:13:20.200Z');
    expect(epochMsToIso(0)).toBe('1970-01-01T00:00:00.000Z');
    expect(epochMsToIso(-1)).toBe('1969-12-31T23:59:59.999Z');
  });
});

describe('isoToEpochMs', () => {
  it('round-trips the printed form', () => {
    for (const ms of [0, 1718000000123, -86_400_001, 253402300799999]) expect(isoToEpochMs(epochMsToIso(ms))).toBe(ms);
  });

  it('accepts zones, missing parts and longer fractions', () => {
    expect(isoToEpochMs('2024-06-10T08:13:20.2+02:00')).toBe(1718000000200);
    expect(isoToEpochMs('2024-06-10T01:43:20-0430')).toBe(1718000000000);
    expect(isoToEpochMs('2024-06-10T06:13:20.123456Z')).toBe(1718000000123);
    expect(isoToEpochMs('2024-06-10 06:13:20')).toBe(1718000000000);
    expect(isoToEpochMs('2024-06-10')).toBe(Date.UTC(2024, 5, 10));
  });

  it('rejects what is not a real ISO-8601 time', () => {
    for (const text of [
      '',
      'yesterday',
      '2024-13-01',
      '2023-02-29T00:00:00Z',
      '2024-06-10T24:00:00Z',
      '10/06/2024',
      '2024-06-10T06:13:20+25:00',
      '1718000000000',
    ]) {
      expect(isoToEpochMs(text), text).toBeUndefined();
    }
    expect(isoToEpochMs('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
  });
});
