// When a partition's pull requests count as refused for good (issue 12, item 4): while a NATS
// cluster elects the consumer's new leader (its node was killed: 4 to 9 s in nats-server 2.9),
// pulls are answered "no responders"; giving the partition up then would recreate the consumer
// while a node is down. Pulls refused for longer mean the consumer or stream is gone; on a single
// server, 10 refusals in a row do, as before.
import type { Msg, NatsConnection } from 'nats';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../shared/observability/logger.js';
import { noConsumerAfterMs } from './jetstream-delivery.js';
import { PartitionPuller } from './partition-puller.js';

let deliver: (msg: Msg) => void;

const nc = {
  subscribe: (_subject: string, options: { callback: (error: Error | null, msg: Msg) => void }) => {
    deliver = (msg) => options.callback(null, msg);
    return { unsubscribe: () => {} };
  },
  publish: () => {},
  isClosed: () => false,
  info: undefined,
} as unknown as NatsConnection;

const status = (code: number, description: string) =>
  ({ headers: { code, description }, data: new Uint8Array() }) as unknown as Msg;
const noResponders = status(503, 'No Responders');
const consumerDeleted = status(409, 'Consumer Deleted');

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** What JetStream answers when asked whether the consumer is missing; `asked` counts the questions. */
const jetstream = { missing: false, asked: 0 };

function startPuller(streamReplicas: number): PartitionPuller {
  jetstream.missing = false;
  jetstream.asked = 0;
  const options = {
    stream: 's',
    consumer: 'c',
    maxHeld: 64,
    maxHeldBytes: 1 << 20,
    maxBytes: 1 << 18,
    expiresMs: 5_000,
    refusedForMs: noConsumerAfterMs(streamReplicas),
    consumerMissing: async () => {
      jetstream.asked++;
      return jetstream.missing;
    },
  };
  const puller = new PartitionPuller(nc, options, createLogger({ level: 'silent', name: 'puller-test' }));
  puller.start();
  return puller;
}

/** Answers every pull with "no responders" for `ms`, as the server does while the consumer has no leader. */
function refuseFor(ms: number): void {
  for (let t = 0; t < ms; t += 1_000) {
    deliver(noResponders);
    vi.advanceTimersByTime(1_000);
  }
}

describe('pull requests answered "no responders" on a NATS cluster', () => {
  it('are retried through a consumer leader election', () => {
    const puller = startPuller(3);
    refuseFor(11_000);
    expect(puller.failure).toBeUndefined();
  });

  it('give the partition up once refused for longer than an election takes', () => {
    const puller = startPuller(3);
    refuseFor(16_000);
    expect(puller.failure?.message).toMatch(/503 No Responders/);
  });
});

describe('pull requests answered "no responders" by a single server', () => {
  it('give the partition up at the tenth refusal in a row', () => {
    const puller = startPuller(1);
    refuseFor(9_000);
    expect(puller.failure).toBeUndefined();
    refuseFor(1_000);
    expect(puller.failure?.message).toMatch(/refused 10 times/);
  });
});

// A pull on a consumer that no longer exists is dropped by the server without any answer; only
// the pull open at the deletion is ended, with "409 Consumer Deleted". The JetStream API is asked.
describe('a consumer deleted under an idle partition', () => {
  it('gives the partition up at the 409 once JetStream says the consumer is missing (single server)', async () => {
    const puller = startPuller(1);
    jetstream.missing = true;
    deliver(consumerDeleted);
    await vi.advanceTimersByTimeAsync(0);
    expect(puller.failure?.message).toMatch(/consumer c or its stream is missing \(409 Consumer Deleted\)/);
  });

  it('keeps the partition when JetStream still has the consumer (a leader stepped down)', async () => {
    const puller = startPuller(1);
    deliver(consumerDeleted);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(jetstream.asked).toBe(1);
    expect(puller.failure).toBeUndefined();
  });

  it('asks about a pull left unanswered past its expiry, and gives the partition up if the consumer is missing', async () => {
    const puller = startPuller(1);
    jetstream.missing = true;
    await vi.advanceTimersByTimeAsync(6_900);
    void puller.waitForMessage(100);
    expect(jetstream.asked).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    void puller.waitForMessage(100);
    await vi.advanceTimersByTimeAsync(0);
    expect(jetstream.asked).toBe(1);
    expect(puller.failure?.message).toMatch(/missing \(pull request unanswered\)/);
  });

  it('on a NATS cluster, gives the partition up only once the consumer has been missing for longer than an election takes', async () => {
    const puller = startPuller(3);
    jetstream.missing = true;
    for (let t = 0; t <= 14_000; t += 7_000) {
      await vi.advanceTimersByTimeAsync(7_000);
      void puller.waitForMessage(100);
      await vi.advanceTimersByTimeAsync(0);
      expect(puller.failure).toBeUndefined();
    }
    await vi.advanceTimersByTimeAsync(7_000);
    void puller.waitForMessage(100);
    await vi.advanceTimersByTimeAsync(0);
    expect(puller.failure?.message).toMatch(/missing/);
  });
});
