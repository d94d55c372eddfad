// Property tests of the ingest door (hostile-input issue, item 1): whatever a client sends, the
// normaliser answers (never throws, reasons stay short), and every event it accepts is one the
// stores can take (storable-event-test-harness.ts says what that means).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ECHO_LENGTH } from './event-limits.js';
import { normalizeEvent } from './event-normalizer.js';
import { hostileEvent, mostlyValidEvent } from './hostile-event-test-harness.js';
import { expectStorable } from './storable-event-test-harness.js';

const context = { receivedAt: 1_718_000_000_000, defaultWorker: 'node-7', allowLockedDefault: false };
const RUNS = 2000;

describe('the normaliser on hostile events', () => {
  it('never throws, and every reason is short', () => {
    fc.assert(
      fc.property(hostileEvent, (raw) => {
        const result = normalizeEvent(raw, context);
        const reason = result.earlyError ?? result.lateError;
        expect(reason === undefined).toBe(result.event !== undefined);
        if (reason !== undefined) expect(reason.length).toBeLessThan(MAX_ECHO_LENGTH + 100);
      }),
      { numRuns: RUNS },
    );
  });

  it('every accepted event encodes into what the stores take', () => {
    let acceptedCount = 0;
    fc.assert(
      fc.property(fc.oneof(hostileEvent, mostlyValidEvent), (raw) => {
        const { event } = normalizeEvent(raw, context);
        if (event === undefined) return;
        acceptedCount += 1;
        expectStorable(event);
      }),
      { numRuns: RUNS },
    );
    // The property must have been exercised on accepted events, not only on rejections.
    expect(acceptedCount).toBeGreaterThan(RUNS / 10);
  });
});
