/**
 * The bounded names under which refused events are counted in the metrics:
 * the error catalogue's ids. A per-event reason (the keys of `errors_info`)
 * echoes client values ("Invalid task id <id>") and can never be a label
 * value; it is classed here by its fixed beginning (event-limits.ts and
 * event-normalizer.ts write them).
 */
import { isApiError, type ErrorId } from '../../shared/errors/error-catalogue.js';
import { isTransientStoreError } from '../../shared/stores/store-errors.js';

/** A request abandoned by its client (or its call cancelled): not an error of the catalogue. */
export const CANCELLED = 'cancelled';

export type RefusalReason = ErrorId | typeof CANCELLED;

const BY_BEGINNING: ReadonlyArray<readonly [string, ErrorId]> = [
  ['Invalid task id', 'invalid_task_id'],
  ['Invalid model id', 'invalid_model_id'],
  ['Event must have', 'missing_required_fields'],
  ['Missing value for field', 'missing_required_fields'],
  ['Invalid value for field', 'invalid_fields'],
  ['Invalid event type', 'invalid_fields'],
  ['Iteration number', 'invalid_fields'],
  ['Field ', 'invalid_fields'],
  ['Event larger than', 'body_too_large'],
];

/** The catalogue id a per-event rejection reason counts under. */
export function eventRefusalReason(reason: string): ErrorId {
  for (const [beginning, id] of BY_BEGINNING) if (reason.startsWith(beginning)) return id;
  return 'validation_error';
}

/** What a failed request's events count under. */
export function requestRefusalReason(error: unknown): RefusalReason {
  if (isApiError(error)) return error.id;
  if ((error as { name?: unknown } | null)?.name === 'AbortError') return CANCELLED;
  return isTransientStoreError(error) ? 'events_not_persisted' : 'internal_error';
}

/** Every reason ingest refuses events for, exported from 0 so that an alert on increase() sees the first. */
export const INGEST_REFUSAL_REASONS: readonly RefusalReason[] = [
  'invalid_task_id',
  'invalid_model_id',
  'missing_required_fields',
  'invalid_fields',
  'validation_error',
  'malformed_body',
  'json_lines_not_object',
  'body_too_large',
  'line_too_long',
  'too_many_entities',
  'ingest_overloaded',
  'writers_behind',
  'event_log_full',
  'events_not_persisted',
  'internal_error',
  CANCELLED,
];
