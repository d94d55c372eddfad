import { describe, expect, it } from 'vitest';
import { InfluxError } from './influx-store.js';
import { statementErrorStatus } from './influx-statement-errors.js';
import { isTransientStoreError } from './store-errors.js';

/** Statement errors as InfluxDB 1.x words them (its source; "engine is closed" also seen live, docs/storage.md). */
const SERVER_STATE = [
  'engine is closed',
  'store is closed',
  'shard is disabled',
  'query engine shutdown',
  'query interrupted',
  'query timeout limit exceeded',
  // As InfluxDB 1.6.7 answered a query cut by its `query-timeout` (seen live, 2026-11-30).
  'query-timeout limit exceeded',
  'max concurrent queries limit exceeded(8, 8)',
  'max-concurrent-queries limit exceeded(8, 8)',
];
const STATEMENT = [
  'error parsing query: found EOF, expected FROM at line 1, char 9',
  'max-select-point limit exceeed: (10001/10000)',
  'max-select-series limit exceeded: (2/1)',
  'database not found: clearml',
  'retention policy not found: autogen',
];

describe('statementErrorStatus', () => {
  it("answers 503 for the server's state: transient (the writer retries, a read answers 'retry later')", () => {
    for (const message of SERVER_STATE) {
      expect(statementErrorStatus(message), message).toBe(503);
      const error = new InfluxError(`InfluxDB query failed: ${message}`, statementErrorStatus(message));
      expect(isTransientStoreError(error), message).toBe(true);
    }
  });

  it('answers 400 for the statement: not transient (the writer refuses, a read answers 500)', () => {
    for (const message of STATEMENT) {
      expect(statementErrorStatus(message), message).toBe(400);
      const error = new InfluxError(`InfluxDB query failed: ${message}`, statementErrorStatus(message));
      expect(isTransientStoreError(error), message).toBe(false);
    }
  });
});
