/**
 * What a failed store call means for the writer, decided from the error
 * alone (docs/storage.md, "Store errors"):
 *
 * - transient: the store, the way to it, or its configuration is unwell and
 *   may get better (connection lost, timeout, 5xx, Redis busy/loading/out of
 *   memory/read-only, NATS no responders, wrong credentials). Retried with
 *   backoff, for as long as the partition is ours: dead-lettering would
 *   move every event of an outage aside.
 * - refused: the store will never take this input as it is (InfluxDB 400,
 *   413, 422; a Redis command or script error; WRONGTYPE; a programming
 *   error on this input). Only the record that caused it is dead-lettered.
 *
 * Anything not recognised is transient: an unknown server state must not
 * cost data. The reasons are a small fixed set: they label a metric.
 */
import { ErrorReply } from 'redis';
import { InfluxError } from '../../shared/stores/influx-store.js';
import { isRedisStateReply, redisErrorCode } from '../../shared/stores/store-errors.js';

export const DEAD_LETTER_REASONS = [
  /** the message or record is not in the wire format (or of an unknown wire version) */
  'undecodable',
  /** InfluxDB refused the point (parse error, field type conflict, key too long, too large) */
  'influx_rejected',
  /** a Redis key the record writes to holds another type */
  'redis_wrongtype',
  /** Redis refused the command or the script failed on this record */
  'redis_rejected',
  /** a log timestamp that no Redis stream id can hold */
  'invalid_log_id',
  /** the writer itself failed on this input (a bug: replay once fixed) */
  'writer_error',
] as const;

export type DeadLetterReason = (typeof DEAD_LETTER_REASONS)[number];

export type StoreErrorClass = { transient: true } | { transient: false; reason: DeadLetterReason };

const TRANSIENT: StoreErrorClass = { transient: true };
const refused = (reason: DeadLetterReason): StoreErrorClass => ({ transient: false, reason });

/** InfluxDB statuses that no retry changes: the body (some point of it) is at fault. */
const INFLUX_REFUSALS = new Set([400, 413, 422]);

/**
 * Redis replies the writer waits out besides the server states that every
 * caller retries (shared/stores/store-errors.ts): a script the server lost,
 * and wrong credentials or permissions, which an operator fixes.
 */
const REDIS_RETRIED_CODES = new Set(['NOSCRIPT', 'NOAUTH', 'WRONGPASS', 'NOPERM']);
/** ERR replies that describe the server's state rather than the command. */
const REDIS_TRANSIENT_ERR = /max number of clients|script killed|timed? ?out/i;

export function classifyStoreError(error: unknown): StoreErrorClass {
  if (error instanceof InfluxError) return INFLUX_REFUSALS.has(error.status) ? refused('influx_rejected') : TRANSIENT;
  if (error instanceof ErrorReply) return classifyRedisReply(error.message);
  if (isProgrammingError(error)) return refused('writer_error');
  return TRANSIENT;
}

/** A Redis error reply, by its code (the first word; scripts pass on the code of the command that failed). */
export function classifyRedisReply(message: string): StoreErrorClass {
  const code = redisErrorCode(message);
  if (code === 'WRONGTYPE') return refused('redis_wrongtype');
  if (isRedisStateReply(message) || REDIS_RETRIED_CODES.has(code)) return TRANSIENT;
  if (code === 'ERR') return REDIS_TRANSIENT_ERR.test(message) ? TRANSIENT : refused('redis_rejected');
  return TRANSIENT;
}

/**
 * A TypeError or RangeError thrown by code on its input fails the same way
 * every time. fetch's "fetch failed" is a TypeError too, but carries the
 * network error as its cause: that one is transient.
 */
function isProgrammingError(error: unknown): boolean {
  if (!(error instanceof TypeError || error instanceof RangeError)) return false;
  return error.cause === undefined && !/fetch failed/i.test(error.message);
}

/** The error's message, one line, bounded: for dead-letter headers and logs (long InfluxDB errors keep their end, where the cause is). */
export function describeError(error: unknown, max = 600): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/[\r\n]+/g, ' ');
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - head - 1))}`;
}
