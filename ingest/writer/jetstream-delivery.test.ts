// When a writer concludes that a partition's consumer is gone (issue 12, item 4): acknowledgements
// answered "no responders" mean no consumer leader answers. On a NATS cluster that is also what a
// consumer leader election looks like (its leader's node was killed: 4 to 9 s in nats-server 2.9);
// starting over then recreates the consumer while a node is down, for nothing. A single server
// elects nothing: there it starts over at once, as before.
import { NatsError } from 'nats';
import { describe, expect, it } from 'vitest';
import { ackPolicy, noConsumerAfterMs } from './jetstream-delivery.js';

const noResponders = () => NatsError.errorForCode('503');
const timeout = () => NatsError.errorForCode('TIMEOUT');

describe('the acknowledgement retry policy on a NATS cluster (stream with 3 replicas)', () => {
  const silence = noConsumerAfterMs(3);

  it('keeps retrying while no consumer leader answers for less than an election takes', () => {
    let now = 0;
    const fatal = ackPolicy(silence, () => now).fatal!;
    for (now = 0; now <= 10_000; now += 500) expect(fatal(noResponders()), `${now} ms`).toBe(false);
  });

  it('starts over once no consumer has answered for longer: the consumer is gone', () => {
    let now = 0;
    const fatal = ackPolicy(silence, () => now).fatal!;
    for (; now < 15_000; now += 1_000) fatal(noResponders());
    expect(fatal(noResponders())).toBe(true);
  });

  it('counts the silence from the first "no responders" after any other answer', () => {
    let now = 0;
    const fatal = ackPolicy(silence, () => now).fatal!;
    fatal(noResponders());
    now = 14_000;
    expect(fatal(timeout())).toBe(false);
    now = 16_000;
    expect(fatal(noResponders())).toBe(false);
    now = 31_000;
    expect(fatal(noResponders())).toBe(false);
    expect(fatal(noResponders())).toBe(true);
  });
});

describe('the acknowledgement retry policy on a single NATS server', () => {
  it('starts over at the third "no responders" in a row', () => {
    const fatal = ackPolicy(noConsumerAfterMs(1), () => 0).fatal!;
    expect([fatal(noResponders()), fatal(noResponders()), fatal(noResponders())]).toEqual([false, false, true]);
  });
});
