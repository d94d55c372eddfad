/**
 * The limit of one InfluxDB call: its deadline (INFLUX_TIMEOUT_MS) and its
 * caller's abort (the client went away). A SIGSTOPped influxd accepts the
 * connection and never answers, so without a deadline a read would wait
 * forever.
 *
 * A timer cleared when the call ends and a listener on the caller's signal,
 * rather than `AbortSignal.timeout` joined to the caller's signal by
 * `AbortSignal.any`: on Node 20 those cost ~17 and ~47 µs of CPU a call
 * against ~9 for a controller and a cleared timer (warm, 20,000 calls), and
 * the timeout's timer is never cleared: 30 s later it fires for every call
 * whose signal was not collected yet and builds a DOMException with its
 * stack (docs/performance.md, "InfluxDB calls limited without abort
 * signals"). Here the request itself is destroyed when the limit is reached.
 */
import { StoreUnavailableError } from './store-errors.js';

/** What the limit stops: node:http's ClientRequest. */
export interface StoppableRequest {
  destroy(error?: Error): unknown;
}

/** The error a caller's abort ends a call with: an AbortError, which is no store failure (store-calls.ts). */
export class CallAbortedError extends Error {
  override readonly name = 'AbortError';
  readonly code = 'ABORT_ERR';
  constructor(cause: unknown) {
    super('The operation was aborted', { cause });
  }
}

export class InfluxCallLimit {
  private timer: NodeJS.Timeout | undefined;
  private request: StoppableRequest | undefined;
  /** Why the call was stopped, once it was. */
  private reason: Error | undefined;
  private readonly onAbort = () => this.stop(new CallAbortedError(this.signal?.reason));

  constructor(
    readonly timeoutMs: number,
    private readonly signal?: AbortSignal,
  ) {
    if (signal?.aborted) {
      this.reason = new CallAbortedError(signal.reason);
      return;
    }
    this.timer = setTimeout(
      () =>
        this.stop(
          new StoreUnavailableError('influx', `InfluxDB did not answer within ${timeoutMs} ms (INFLUX_TIMEOUT_MS)`),
        ),
      timeoutMs,
    );
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Whether the deadline passed before the call ended. */
  get timedOut(): boolean {
    return this.reason instanceof StoreUnavailableError;
  }

  /** Whether the caller aborted before the call ended. */
  get aborted(): boolean {
    return this.reason instanceof CallAbortedError;
  }

  /** Why the call was stopped (the deadline's StoreUnavailableError, the caller's CallAbortedError), if it was. */
  get stoppedBy(): Error | undefined {
    return this.reason;
  }

  /** The call's request: destroyed when the limit is reached, at once if it already was. */
  attach(request: StoppableRequest): void {
    if (this.reason !== undefined) request.destroy(this.reason);
    else this.request = request;
  }

  /** The call ended (answer read, or failed): nothing of the limit is left behind. */
  release(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.request = undefined;
  }

  private stop(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    const request = this.request;
    this.release();
    request?.destroy(reason);
  }
}

/**
 * Runs one InfluxDB call under a limit of `timeoutMs` and the caller's `signal`; `call` gives the
 * limit to its request (influx-http.ts) and reads the whole answer before it returns. A call stopped
 * by its deadline fails with StoreUnavailableError (transient: 503), one stopped by its caller with
 * CallAbortedError, whatever error the cut request or answer raised.
 */
export async function withInfluxLimit<T>(
  timeoutMs: number,
  signal: AbortSignal | undefined,
  call: (limit: InfluxCallLimit) => Promise<T>,
): Promise<T> {
  const limit = new InfluxCallLimit(timeoutMs, signal);
  try {
    return await call(limit);
  } catch (error) {
    const stoppedBy = limit.stoppedBy;
    if (stoppedBy !== undefined && stoppedBy !== error) {
      // The cut answer raised its own error ('aborted', ECONNRESET): the limit says why it was cut.
      if (stoppedBy instanceof StoreUnavailableError)
        throw new StoreUnavailableError('influx', stoppedBy.message, { cause: error });
      throw stoppedBy;
    }
    throw error;
  } finally {
    limit.release();
  }
}
