import { describe, expect, it } from 'vitest';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { StoreUnavailableError } from '../../shared/stores/store-errors.js';
import { eventTooLarge, invalidField, REASON, tooLong } from './event-limits.js';
import { eventRefusalReason, INGEST_REFUSAL_REASONS, requestRefusalReason } from './refusal-reasons.js';

describe('refusal reasons of the metrics', () => {
  it('class every per-event reason under a catalogue id, whatever client text it echoes', () => {
    expect(eventRefusalReason('Invalid task id ' + 'x'.repeat(300))).toBe('invalid_task_id');
    expect(eventRefusalReason('Invalid model id <dict>')).toBe('invalid_model_id');
    expect(eventRefusalReason(REASON.missingType)).toBe('missing_required_fields');
    expect(eventRefusalReason(REASON.missingTask)).toBe('missing_required_fields');
    expect(eventRefusalReason(REASON.missingValue)).toBe('missing_required_fields');
    expect(eventRefusalReason(REASON.iterAbove)).toBe('invalid_fields');
    expect(eventRefusalReason(REASON.timestampRange)).toBe('invalid_fields');
    expect(eventRefusalReason(REASON.vectorLength)).toBe('invalid_fields');
    expect(eventRefusalReason(invalidField('metric'))).toBe('invalid_fields');
    expect(eventRefusalReason(tooLong('msg', 10))).toBe('invalid_fields');
    expect(eventRefusalReason('Invalid event type "}{Ω')).toBe('invalid_fields');
    expect(eventRefusalReason(eventTooLarge(1024))).toBe('body_too_large');
    expect(eventRefusalReason(REASON.logForModel)).toBe('validation_error');
    expect(eventRefusalReason('anything else a client might make us say')).toBe('validation_error');
  });

  it('class a failed request by its catalogue error, a client gone as cancelled, anything else as internal', () => {
    expect(requestRefusalReason(apiError('ingest_overloaded'))).toBe('ingest_overloaded');
    expect(requestRefusalReason(new DOMException('gone', 'AbortError'))).toBe('cancelled');
    expect(requestRefusalReason(new StoreUnavailableError('nats', 'down'))).toBe('events_not_persisted');
    expect(requestRefusalReason(new Error('bug'))).toBe('internal_error');
    for (const reason of ['invalid_task_id', 'invalid_fields', 'events_not_persisted', 'cancelled'])
      expect(INGEST_REFUSAL_REASONS).toContain(reason);
  });
});
