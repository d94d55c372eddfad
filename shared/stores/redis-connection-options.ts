/**
 * What the single Redis client and each Redis Cluster node connection share:
 * socket settings and the error log.
 */
import type { Logger } from '../observability/logger.js';

/** Settings of every connection, to a single server or to each cluster node. */
export function connectionOptions(commandTimeoutMs: number) {
  return {
    disableOfflineQueue: true,
    // Keeps a healthy idle connection from reaching socketTimeout; a silent one reaches it.
    pingInterval: Math.max(100, Math.floor(commandTimeoutMs / 2)),
    socket: {
      connectTimeout: commandTimeoutMs,
      socketTimeout: 2 * commandTimeoutMs,
      reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 2_000),
    },
  };
}

/** Logs each distinct error once until the connection is ready again. */
export function errorLogger(logger: Logger, what: string): { onError(error: Error): void; onReady(): void } {
  let lastError = '';
  return {
    onError(error) {
      if (error.message !== lastError) logger.warn({ err: error }, what);
      lastError = error.message;
    },
    onReady() {
      lastError = '';
    },
  };
}
