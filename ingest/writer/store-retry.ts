/**
 * Retries a store operation until it succeeds: a batch is never dropped and
 * never handed back with a delayed nak during normal operation, because the
 * messages behind it would then be stored first and their overwrites undone
 * when it comes back (the partition worker keeps the held messages' ack
 * deadlines from passing meanwhile). It gives up only when told to (the
 * lease is lost, or the writer stops), and on errors no retry can fix.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../shared/observability/logger.js';

export type StoreName = 'influx' | 'redis' | 'nats';

export class GaveUp extends Error {
  override readonly name = 'GaveUp';
}

export interface RetryOptions {
  maxDelayMs: number;
  /** Aborted: stop retrying (lease lost, stop deadline passed). */
  signal: AbortSignal;
  onRetry(store: StoreName, error: unknown): void;
  logger: Logger;
}

export async function untilStored<T>(store: StoreName, options: RetryOptions, operation: () => Promise<T>, isPermanent: (error: unknown) => boolean = () => false): Promise<T> {
  let delay = 100;
  let attempt = 0;
  for (;;) {
    if (options.signal.aborted) throw new GaveUp(`gave up on ${store}`);
    try {
      return await operation();
    } catch (error) {
      if (isPermanent(error)) throw error;
      attempt++;
      options.onRetry(store, error);
      // Once per failure streak at warn, then quieter: an outage must not flood the log.
      if (attempt === 1) options.logger.warn({ store, err: error }, 'store write failed; retrying');
      else options.logger.debug({ store, attempt, err: error }, 'store write failed again');
    }
    try {
      await sleep(delay, undefined, { signal: options.signal });
    } catch {
      throw new GaveUp(`gave up on ${store}`);
    }
    delay = Math.min(options.maxDelayMs, delay * 2);
  }
}
