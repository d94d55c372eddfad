import fc from 'fast-check';
import { SimpleError } from 'redis';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/observability/logger.js';
import {
  backoffDelay,
  GaveUp,
  LeaseLost,
  RetriesExhausted,
  StoreRefused,
  untilStored,
  type RetryOptions,
} from './store-retry.js';
import { WriteFence } from './write-fence.js';

const logger = createLogger({ level: 'silent', name: 'test' });

function options(signal = new AbortController().signal): RetryOptions & { retries: number } {
  const state = { retries: 0 };
  return Object.assign(state, { maxDelayMs: 4, signal, onRetry: () => state.retries++, logger });
}

describe('backoffDelay', () => {
  it('doubles up to the cap, jittered within the upper half of each step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 100, max: 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, max, r) => {
          const step = Math.min(max, 100 * 2 ** Math.min(attempt - 1, 30));
          const delay = backoffDelay(attempt, max, () => r);
          expect(delay).toBeGreaterThanOrEqual(step / 2);
          expect(delay).toBeLessThanOrEqual(step);
          expect(Number.isFinite(delay)).toBe(true);
        },
      ),
    );
  });

  it('spreads retries of the same attempt', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(5, 5_000)));
    expect(delays.size).toBeGreaterThan(40);
  });
});

describe('untilStored', () => {
  it('retries transient failures until the operation succeeds', async () => {
    const o = options();
    let calls = 0;
    const result = await untilStored('redis', o, async () => {
      if (++calls < 4) throw new SimpleError('LOADING Redis is loading the dataset in memory');
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(o.retries).toBe(3);
  });

  it('stops at the first permanent refusal, with its reason and the error as cause', async () => {
    const o = options();
    const cause = new SimpleError('WRONGTYPE Operation against a key holding the wrong kind of value');
    const error = await untilStored('redis', o, () => Promise.reject(cause)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreRefused);
    expect(error).toMatchObject({ store: 'redis', reason: 'redis_wrongtype', detail: cause.message, cause });
    expect(o.retries).toBe(0);
  });

  it('gives up when aborted, and after maxAttempts when given', async () => {
    const controller = new AbortController();
    const o = options(controller.signal);
    const pending = untilStored('nats', o, () => Promise.reject(new Error('TIMEOUT')));
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toBeInstanceOf(GaveUp);
    await expect(
      untilStored('nats', options(), () => Promise.reject(new Error('TIMEOUT')), { maxAttempts: 3 }),
    ).rejects.toBeInstanceOf(RetriesExhausted);
  });

  it('passes the fence before every attempt: no attempt is issued once the lease is not certain, and LeaseLost is not retried', async () => {
    let holds = true;
    const o = Object.assign(options(), { fence: new WriteFence(3, () => holds) });
    let calls = 0;
    const pending = untilStored('redis', o, async () => {
      calls++;
      holds = false; // the lease lapses while this attempt fails
      throw new SimpleError('LOADING Redis is loading the dataset in memory');
    });
    await expect(pending).rejects.toBeInstanceOf(LeaseLost);
    expect(calls).toBe(1);
    expect(o.fence.take()).toEqual({ issuedFrom: expect.any(Number), issuedTo: expect.any(Number) });
    expect(o.fence.take()).toBeUndefined();
    // Thrown from inside the operation (the InfluxDB writer passes it again once it has a slot): not retried either.
    holds = true;
    await expect(
      untilStored('influx', o, () => Promise.reject(new LeaseLost('lapsed while waiting'))),
    ).rejects.toBeInstanceOf(LeaseLost);
    expect(o.retries).toBe(1);
  });
});
