// The writer's decision on a message stored after ingest answered 503 (publish-deadline.ts): the header is
// read from the message, so any value must give an answer, never an exception, and only a message stored
// after its deadline plus the slack counts as late.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storedAfterDeadline } from './publish-deadline.js';

describe('storedAfterDeadline', () => {
  it('is late only when stored after deadline + slack', () => {
    expect(storedAfterDeadline('1000', 1000, 0)).toBe(false);
    expect(storedAfterDeadline('1000', 1000.5, 0)).toBe(true);
    expect(storedAfterDeadline('1000', 1500, 500)).toBe(false);
    expect(storedAfterDeadline('1000', 1501, 500)).toBe(true);
  });

  it('never counts a message without a readable deadline, or without a stream timestamp, as late', () => {
    expect(storedAfterDeadline(undefined, 5000, 0)).toBe(false);
    expect(storedAfterDeadline('soon', 5000, 0)).toBe(false);
    expect(storedAfterDeadline('1000', Number.NaN, 0)).toBe(false);
  });

  it('answers for any header text and any times (generated)', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), fc.double(), fc.nat(), (header, storedAt, slack) => {
        const late = storedAfterDeadline(header, storedAt, slack);
        expect(typeof late).toBe('boolean');
        if (late) expect(storedAt).toBeGreaterThan(Number(header) + slack);
      }),
    );
  });
});
