/**
 * The per-event limits ingest enforces so that nothing is acknowledged that
 * a store cannot hold (docs/ingest.md "Per-event limits" gives each cap's
 * reason and margin), and the rejection reasons that name them.
 *
 * Lengths are JS string lengths (UTF-16 code units), checked in O(1). The
 * InfluxDB series key (measurement and every tag, escaped or base64-encoded)
 * must stay under 65,535 bytes: a code unit takes at most 4 bytes there (a
 * 3-byte UTF-8 character base64-encoded), so metric + variant + image key at
 * 4,096 each plus the id and company stay under ~51 KB.
 */
import { NO_ITER_THRESHOLD } from '../../shared/events/storage-layout.js';
import { headOf } from '../../shared/protocol/python-repr.js';

export const MAX_ENTITY_ID_LENGTH = 128;
/** metric, variant and the debug image key: InfluxDB tags (series key ≤ 65,535 bytes). */
export const MAX_NAME_LENGTH = 4096;
export const MAX_X_AXIS_LABEL_LENGTH = 4096;
export const MAX_WORKER_LENGTH = 1024;
export const MAX_LEVEL_LENGTH = 128;
export const MAX_URL_LENGTH = 16_384;
/** A log line; a page of log events is read whole, so this bounds a page's size. */
export const MAX_MSG_LENGTH = 1_048_576;
export const MAX_VECTOR_LENGTH = 100_000;
/** value, iter and timestamp given as strings: a double never needs more; bounds the regex and Number(). */
export const MAX_NUMERIC_STRING_LENGTH = 100;

/**
 * Timestamps (epoch ms): log timestamps are Redis stream ids (unsigned ms),
 * and reads render timestamps as ISO-8601 with a four-digit year (Python's
 * datetime stops at 9999 too): 1970-01-01T00:00:00.000Z .. 9999-12-31T23:59:59.999Z.
 */
export const MIN_TIMESTAMP = 0;
export const MAX_TIMESTAMP = 253_402_300_799_999;

/** 2^63: the first double above the int64 range (events.md §1.3 step 7). */
export const ITER_LIMIT = 9_223_372_036_854_775_808;
/**
 * Below this an iteration's point time would read back as "no iteration"
 * (events without one sit at InfluxDB's smallest time, and reads treat every
 * time below the threshold as that sentinel).
 */
export const MIN_ITER = NO_ITER_THRESHOLD;

/** How much of a client value a reason echoes: a 10 MB id must not become a 10 MB errors_info key. */
export const MAX_ECHO_LENGTH = 256;

export const REASON = {
  missingType: "Event must have a 'type' field",
  logForModel: 'Task log events are not supported for models',
  missingTask: "Event must have a 'task' field",
  iterAbove: 'Iteration number should not exceed 9223372036854775807',
  iterBelow: `Iteration number should not be below ${BigInt(MIN_ITER)}`,
  timestampRange: `Field 'timestamp' out of range (${MIN_TIMESTAMP} to ${MAX_TIMESTAMP} ms)`,
  vectorLength: `Field 'values' longer than ${MAX_VECTOR_LENGTH} items`,
  missingValue: "Missing value for field 'value'",
  missingValues: "Missing value for field 'values'",
} as const;

/** `Invalid value for field '<name>'`, built once per field name. */
const INVALID = new Map<string, string>();
export function invalidField(name: string): string {
  let reason = INVALID.get(name);
  if (reason === undefined) INVALID.set(name, (reason = `Invalid value for field '${name}'`));
  return reason;
}

export function tooLong(name: string, cap: number): string {
  return `Field '${name}' longer than ${cap} characters`;
}

export function eventTooLarge(limitBytes: number): string {
  return `Event larger than the event log's message limit (${limitBytes} bytes)`;
}

/**
 * A client value as a reason prints it, bounded and without walking it
 * (String() of a deeply nested array recurses until the stack overflows).
 * Strings are cut at MAX_ECHO_LENGTH with `…`; scalars print as Python's
 * str() would (ClearML's messages are Python f-strings); containers by kind.
 */
export function echo(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_ECHO_LENGTH ? `${headOf(value, MAX_ECHO_LENGTH)}…` : value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'True' : 'False';
    case 'object':
      return value === null ? 'None' : Array.isArray(value) ? '<list>' : '<dict>';
    default:
      return `<${typeof value}>`;
  }
}
