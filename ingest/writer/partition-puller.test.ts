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

const noResponders = { headers: { code: 503, description: 'No Responders' }, data: new Uint8Array() } as unknown as Msg;

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function startPuller(streamReplicas: number): PartitionPuller {
  const options = {
    stream: 's',
    consumer: 'c',
    maxHeld: 64,
    maxHeldBytes: 1 << 20,
    maxBytes: 1 << 18,
    expiresMs: 5_000,
    refusedForMs: noConsumerAfterMs(streamReplicas),
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
