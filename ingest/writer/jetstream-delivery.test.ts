// When a writer concludes that a partition's consumer is gone (issue 12, item 4): acknowledgements
// answered "no responders" mean no consumer leader answers. In a NATS cluster that is also what a
// consumer leader election looks like (its leader's node was killed: 4 to 9 s in nats-server 2.9);
// starting over then recreates the consumer while a node is down, for nothing.
import { NatsError } from 'nats';
import { describe, expect, it } from 'vitest';
import { ackPolicy } from './jetstream-delivery.js';

const noResponders = () => NatsError.errorForCode('503');
const timeout = () => NatsError.errorForCode('TIMEOUT');

describe('the acknowledgement retry policy', () => {
  it('keeps retrying while no consumer leader answers for less than an election takes', () => {
    let now = 0;
    const fatal = ackPolicy(() => now).fatal!;
    for (now = 0; now <= 10_000; now += 500) expect(fatal(noResponders()), `${now} ms`).toBe(false);
  });

  it('starts over once no consumer has answered for longer: the consumer is gone', () => {
    let now = 0;
    const fatal = ackPolicy(() => now).fatal!;
    for (; now < 15_000; now += 1_000) fatal(noResponders());
    expect(fatal(noResponders())).toBe(true);
  });

  it('counts the silence from the first "no responders" after any other answer', () => {
    let now = 0;
    const fatal = ackPolicy(() => now).fatal!;
    fatal(noResponders());
    now = 14_000;
    expect(fatal(timeout())).toBe(false);
    now = 16_000;
    expect(fatal(noResponders())).toBe(false);
    now = 31_000;
    expect(fatal(noResponders())).toBe(true);
  });
});
