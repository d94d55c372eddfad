/**
 * Which store failures are transient. The SDK retries a 503 forever, so the
 * service answers 503 only for what a retry can fix: a store that did not
 * answer in time, a connection that is down or was lost, a store's own
 * "unavailable" (5xx, LOADING, JetStream without quorum or full). Anything
 * else (a script error, a 4xx from InfluxDB, WRONGTYPE) is a fault that
 * repeating the request cannot fix: it stays a 500.
 */
import {
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ErrorReply,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from 'redis';
import { apiError, type ApiError } from '../errors/error-catalogue.js';

export type StoreName = 'redis' | 'influx' | 'nats';

/** A store did not answer within its timeout, or is known to be unreachable: always transient. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(
    readonly store: StoreName,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const REDIS_CONNECTION_ERRORS = [
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
];

/**
 * Redis error codes that describe the server's state, not the command: "not
 * now" rather than "never". OOM is one of them: maxmemory is checked before
 * a write whatever its size, so memory freed lets the same write through;
 * READONLY is a replica answering during a failover; MOVED and ASK reach a
 * caller only when the cluster client gave up following them (its
 * redirection limit, or ASK in a MULTI) while the slot map is in flux.
 */
const REDIS_STATE_CODES = new Set([
  'LOADING',
  'BUSY',
  'MASTERDOWN',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'NOREPLICAS',
  'OOM',
  'READONLY',
  'MISCONF',
  'UNBLOCKED',
  'MOVED',
  'ASK',
]);

/** The code of a Redis error reply (its first word; scripts pass on the code of the command that failed). */
export function redisErrorCode(message: string): string {
  return /^[A-Z]+/.exec(message)?.[0] ?? '';
}

/** Whether a Redis error reply is about the server's state (retry later) rather than the command. */
export function isRedisStateReply(message: string): boolean {
  return REDIS_STATE_CODES.has(redisErrorCode(message));
}

/** Socket, DNS and undici (fetch) failures to reach a server. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** nats.js error codes of a connection or request that did not get through. */
const NATS_TRANSIENT_CODES = new Set([
  'TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DRAINING',
  'CONNECTION_REFUSED',
  'CONNECTION_TIMEOUT',
  'DISCONNECT',
  '503',
  '408',
]);

/** JetStream API error: stream not found (it is created again, see event-streams.ts). */
const JS_STREAM_NOT_FOUND = 10059;

export function isTransientStoreError(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  if (error instanceof StoreUnavailableError) return true;
  if (REDIS_CONNECTION_ERRORS.some((type) => error instanceof type)) return true;
  const e = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    status?: unknown;
    api_error?: { code?: number; err_code?: number };
    cause?: unknown;
  };
  // AbortSignal.timeout() of an InfluxDB call; a caller's own abort (client gone) is an AbortError, not a store failure.
  if (e.name === 'TimeoutError') return true;
  if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  if (e.name === 'NatsError' || e.api_error !== undefined) {
    const api = e.api_error;
    if (api) return (api.code ?? 0) >= 500 || api.code === 408 || api.err_code === JS_STREAM_NOT_FOUND;
    return typeof e.code === 'string' && NATS_TRANSIENT_CODES.has(e.code);
  }
  if (e.name === 'InfluxError' && typeof e.status === 'number') return e.status >= 500 || e.status === 429;
  if (error instanceof ErrorReply) return isRedisStateReply(error.message);
  return isTransientStoreError(e.cause, depth + 1);
}

/**
 * The answer to a read or report call that failed on a store: 503 `Store
 * unavailable, retry later` when the failure is transient, undefined
 * otherwise (the caller answers 500).
 */
export function storeUnavailableAnswer(error: unknown): ApiError | undefined {
  if (!isTransientStoreError(error)) return undefined;
  return apiError('store_unavailable', undefined, undefined, { cause: error });
}
