// docs/ingest.md "Bounded resources": publishes in flight to JetStream are bounded in bytes
// across all requests of the process, so that many large requests committing at once do not
// hold (and copy into the NATS client's buffer) all their messages together.
import { describe, expect, it } from 'vitest';
import { PublishWindow } from './publish-window.js';

describe('PublishWindow', () => {
  it('never lets more than its bytes out at once and serves waiters in order', async () => {
    const window = new PublishWindow(100);
    const order: number[] = [];
    let out = 0;
    let peak = 0;
    await Promise.all(
      [60, 30, 50, 20, 100, 10].map(async (bytes, i) => {
        const release = await window.acquire(bytes);
        order.push(i);
        out += bytes;
        peak = Math.max(peak, out);
        await new Promise((r) => setTimeout(r, 5));
        out -= bytes;
        release();
      }),
    );
    expect(peak).toBeLessThanOrEqual(100);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('lets one message larger than the window out alone', async () => {
    const window = new PublishWindow(10);
    const release = await window.acquire(50);
    let second = false;
    const next = window.acquire(1).then((r) => ((second = true), r));
    await new Promise((r) => setTimeout(r, 5));
    expect(second).toBe(false);
    release();
    (await next)();
    expect(window.inFlight).toBe(0);
  });
});
