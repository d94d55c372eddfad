import { describe, expect, it } from 'vitest';
import { formatClearmlDateTime } from './clearml-datetime.js';

describe('formatClearmlDateTime (protocol.md §1)', () => {
  it('writes a 6-digit fraction and +00:00', () => {
    expect(formatClearmlDateTime(Date.UTC(2024, 4, 1, 10, 20, 30, 123))).toBe('2024-05-01T10:20:30.123000+00:00');
    expect(formatClearmlDateTime(Date.UTC(2024, 4, 2, 8, 0, 0, 500))).toBe('2024-05-02T08:00:00.500000+00:00');
    expect(formatClearmlDateTime(Date.UTC(2024, 4, 1, 10, 20, 30, 1))).toBe('2024-05-01T10:20:30.001000+00:00');
  });

  it('omits a zero fraction', () => {
    expect(formatClearmlDateTime(Date.UTC(2024, 4, 3, 9, 15, 0))).toBe('2024-05-03T09:15:00+00:00');
    expect(formatClearmlDateTime(0)).toBe('1970-01-01T00:00:00+00:00');
  });

  it('keeps sub-millisecond precision to the microsecond', () => {
    expect(formatClearmlDateTime(Date.UTC(2024, 0, 1) + 0.25)).toBe('2024-01-01T00:00:00.000250+00:00');
  });
});
