/**
 * What an error InfluxDB answers for a statement (in its results, with HTTP
 * 200, or as the body's `error`) says: most are about the statement (a parse
 * error, a limit on what it selects) and a retry fails the same way; a few
 * describe the server's state (shutting down, a shard closing, too many
 * queries at once) and a retry later succeeds. Those get 503, so that a
 * writer retries them with backoff instead of dead-lettering a deletion, and
 * a read answers "retry later" instead of 500 (store-errors.ts).
 *
 * The messages are InfluxDB 1.x's own (tsdb: ErrEngineClosed, ErrStoreClosed,
 * ErrShardDisabled; query: ErrQueryEngineShutdown, ErrQueryInterrupted,
 * ErrQueryTimeoutLimitExceeded, ErrMaxConcurrentQueriesLimitExceeded, spelt
 * with or without hyphens across versions).
 */
const SERVER_STATE =
  /engine is closed|store is closed|shard is disabled|query engine shutdown|query interrupted|query[- ]timeout limit exceeded|max[- ]concurrent[- ]queries limit exceeded/i;

/** The HTTP status an InfluxDB statement error stands for: 503 for the server's state, 400 for the statement. */
export function statementErrorStatus(message: string): 400 | 503 {
  return SERVER_STATE.test(message) ? 503 : 400;
}
