/**
 * Retries a store operation while its errors are transient (store-errors.ts):
 * a batch is never dropped and never handed back with a delayed nak during
 * normal operation, because the messages behind it would then be stored
 * first and their overwrites undone when it comes back (the partition
 * worker keeps the held messages' ack deadlines from passing meanwhile).
 *
 * It stops when told to (the lease is lost, or the writer stops: GaveUp),
 * when the lease is no longer certain right before an attempt (LeaseLost),
 * when the store refuses the input for good (StoreRefused: the caller
 * isolates the record at fault), after `maxAttempts` when given, and on
 * an error the caller calls fatal.
 *
 * Delays double from 100 ms up to maxDelayMs, each drawn from the upper half
 * of its step ("equal jitter"): writers retrying after a shared outage do not
 * all come back in the same instant, and none waits less than half a step.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../shared/observability/logger.js';
import type { WriteFence } from './write-fence.js';
import { classifyStoreError, describeError, type DeadLetterReason, type StoreErrorClass } from './store-errors.js';

export type StoreName = 'influx' | 'redis' | 'nats';

const FIRST_DELAY_MS = 100;

export class GaveUp extends Error {
  override readonly name = 'GaveUp';
}

/** The partition's lease may already be another writer's: nothing more may be stored for it (write-fence.ts). */
export class LeaseLost extends Error {
  override readonly name = 'LeaseLost';
}

/** The store will never take the input as it is. */
export class StoreRefused extends Error {
  override readonly name = 'StoreRefused';

  constructor(
    readonly store: StoreName,
    readonly reason: DeadLetterReason,
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`${store} refused (${reason}): ${detail}`, options);
  }
}

/** Transient failures went on for `maxAttempts` tries. */
export class RetriesExhausted extends Error {
  override readonly name = 'RetriesExhausted';
}

export interface RetryOptions {
  maxDelayMs: number;
  /** Aborted: stop retrying (lease lost, stop deadline passed). */
  signal: AbortSignal;
  onRetry(store: StoreName, error: unknown): void;
  logger: Logger;
  /** Passed right before each attempt is issued; throws LeaseLost to stop. */
  fence?: WriteFence;
}

export interface RetryPolicy {
  classify?: (error: unknown) => StoreErrorClass;
  /** Give up (RetriesExhausted) after this many failed tries; default never. */
  maxAttempts?: number;
  /** Errors that end the retries at once, thrown as they are (the caller starts over). */
  fatal?: (error: unknown) => boolean;
}

/** The delay before retry number `attempt` (1-based). */
export function backoffDelay(attempt: number, maxDelayMs: number, random: () => number = Math.random): number {
  const step = Math.min(maxDelayMs, FIRST_DELAY_MS * 2 ** Math.min(attempt - 1, 30));
  return step / 2 + random() * (step / 2);
}

export async function untilStored<T>(
  store: StoreName,
  options: RetryOptions,
  operation: () => Promise<T>,
  policy: RetryPolicy = {},
): Promise<T> {
  const classify = policy.classify ?? classifyStoreError;
  let attempt = 0;
  for (;;) {
    if (options.signal.aborted) throw new GaveUp(`gave up on ${store}`);
    options.fence?.pass();
    try {
      return await operation();
    } catch (error) {
      if (error instanceof LeaseLost || policy.fatal?.(error)) throw error;
      const verdict = classify(error);
      if (!verdict.transient) throw new StoreRefused(store, verdict.reason, describeError(error), { cause: error });
      attempt++;
      options.onRetry(store, error);
      if (policy.maxAttempts !== undefined && attempt >= policy.maxAttempts) {
        throw new RetriesExhausted(`${store} failed ${attempt} times: ${describeError(error)}`, { cause: error });
      }
      // Once per failure streak at warn, then quieter: an outage must not flood the log.
      if (attempt === 1) options.logger.warn({ store, err: error }, 'store write failed; retrying');
      else options.logger.debug({ store, attempt, err: error }, 'store write failed again');
    }
    try {
      await sleep(backoffDelay(attempt, options.maxDelayMs), undefined, { signal: options.signal });
    } catch {
      throw new GaveUp(`gave up on ${store}`);
    }
  }
}
