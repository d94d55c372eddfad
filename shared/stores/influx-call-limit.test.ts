import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallAbortedError, InfluxCallLimit } from './influx-call-limit.js';
import { StoreUnavailableError } from './store-errors.js';

const request = () => ({ destroy: vi.fn() });

describe('InfluxCallLimit', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('destroys the request with a StoreUnavailableError naming INFLUX_TIMEOUT_MS when the deadline passes', () => {
    const limit = new InfluxCallLimit(1_500);
    const stalled = request();
    limit.attach(stalled);
    vi.advanceTimersByTime(1_499);
    expect(stalled.destroy).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(stalled.destroy).toHaveBeenCalledTimes(1);
    const reason = stalled.destroy.mock.calls[0]![0] as Error;
    expect(reason).toBeInstanceOf(StoreUnavailableError);
    expect(reason.message).toBe('InfluxDB did not answer within 1500 ms (INFLUX_TIMEOUT_MS)');
    expect(limit.timedOut).toBe(true);
    // A request attached once the limit is reached (a retry inside the same call) is stopped at once.
    const late = request();
    limit.attach(late);
    expect(late.destroy).toHaveBeenCalledWith(reason);
  });

  it('destroys the request with an AbortError when the caller aborts, and arms nothing for an aborted caller', () => {
    const caller = new AbortController();
    const limit = new InfluxCallLimit(30_000, caller.signal);
    const pending = request();
    limit.attach(pending);
    caller.abort(new Error('client gone'));
    const reason = pending.destroy.mock.calls[0]![0] as Error;
    expect(reason).toBeInstanceOf(CallAbortedError);
    expect(reason.name).toBe('AbortError');
    expect(limit.aborted).toBe(true);
    expect(limit.timedOut).toBe(false);
    // The abort stopped the deadline too.
    expect(vi.getTimerCount()).toBe(0);

    const already = new InfluxCallLimit(30_000, caller.signal);
    expect(vi.getTimerCount()).toBe(0);
    const next = request();
    already.attach(next);
    expect(next.destroy.mock.calls[0]![0]).toBeInstanceOf(CallAbortedError);
  });

  it('leaves no timer and no listener on the caller once released: a call that ended costs nothing later', () => {
    const caller = new AbortController();
    const limit = new InfluxCallLimit(30_000, caller.signal);
    const answered = request();
    limit.attach(answered);
    expect(vi.getTimerCount()).toBe(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    limit.release();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    vi.advanceTimersByTime(60_000);
    caller.abort();
    expect(answered.destroy).not.toHaveBeenCalled();
    expect(limit.timedOut || limit.aborted).toBe(false);
  });
});
