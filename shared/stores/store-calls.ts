/**
 * Timing of store calls, done once in the store adapters (the InfluxDB HTTP
 * calls, every Redis command) rather than around each use: every target's
 * reads and writes through them are counted, by store and operation.
 * Operations are names from our own code (an InfluxDB endpoint, a Redis
 * command name), never a client value.
 */
import { Counter, DURATION_BUCKETS, Histogram, type Registry } from '../observability/metrics.js';

export type TimedStore = 'influx' | 'redis';

export interface StoreCalls {
  /** Runs `call`, recording its duration and, if it fails, an error (a caller's abort is no store error). */
  time<T>(store: TimedStore, operation: string, call: () => Promise<T>): Promise<T>;
}

/** For adapters built outside a process (benches, tests of one adapter): records nothing. */
export const UNTIMED: StoreCalls = { time: (_store, _operation, call) => call() };

export function createStoreCalls(registry: Registry): StoreCalls {
  const duration = new Histogram<'store' | 'operation'>({
    name: 'clearml_store_call_duration_seconds',
    help: 'Duration of one store call (an InfluxDB HTTP call, a Redis command, MULTI or pipeline), answer included, by store and operation',
    labelNames: ['store', 'operation'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter<'store' | 'operation'>({
    name: 'clearml_store_call_errors_total',
    help: 'Store calls that failed (error answer, timeout, connection lost), by store and operation',
    labelNames: ['store', 'operation'],
    registers: [registry],
  });
  // Children by store and operation: one lookup per call, and an operation's error count exists from
  // its first call on (at 0), so that increase() sees its first error.
  const children = new Map<
    string,
    { duration: ReturnType<typeof duration.labels>; errors: ReturnType<typeof errors.labels> }
  >();
  const childrenOf = (store: TimedStore, operation: string) => {
    const key = `${store} ${operation}`;
    let child = children.get(key);
    if (child === undefined) {
      child = { duration: duration.labels(store, operation), errors: errors.labels(store, operation) };
      child.errors.inc(0);
      children.set(key, child);
    }
    return child;
  };
  return {
    async time(store, operation, call) {
      const child = childrenOf(store, operation);
      const started = process.hrtime.bigint();
      try {
        return await call();
      } catch (error) {
        if ((error as { name?: unknown } | null)?.name !== 'AbortError') child.errors.inc();
        throw error;
      } finally {
        child.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      }
    },
  };
}
