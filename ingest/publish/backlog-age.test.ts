// How far behind the writers are, from readings of the events stream's sequences (backlog-age.ts): the age of the
// oldest message not yet acknowledged, never more than it truly is, short of it by at most one reading's interval.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BacklogAge, DrainTime } from './backlog-age.js';

const reading = (first_seq: number, last_seq: number) => ({
  first_seq,
  last_seq,
  messages: last_seq - first_seq + 1,
});

describe('BacklogAge', () => {
  it('is 0 for an empty stream and for messages published since the last reading', () => {
    const age = new BacklogAge(60_000);
    expect(age.observe(0, { first_seq: 1, last_seq: 0, messages: 0 })).toBe(0);
    expect(age.observe(500, reading(1, 10))).toBe(0);
  });

  it('grows while the oldest message stays, and follows it as the writers move on', () => {
    const age = new BacklogAge(60_000);
    age.observe(0, reading(1, 10)); // messages 1-10 published by t=0
    age.observe(500, reading(1, 20)); // 11-20 by t=500
    age.observe(1_000, reading(1, 30)); // 21-30 by t=1000
    expect(age.observe(4_000, reading(1, 30))).toBe(4_000);
    // 1-15 stored: the oldest, 16, was published after t=0 and by t=500.
    expect(age.observe(4_500, reading(16, 30))).toBe(4_000);
    // 21 was published by t=1000.
    expect(age.observe(5_000, reading(21, 40))).toBe(4_000);
    // Everything stored.
    expect(age.observe(5_500, { first_seq: 41, last_seq: 40, messages: 0 })).toBe(0);
    // A new message after that is young again.
    expect(age.observe(6_000, reading(41, 41))).toBe(0);
    expect(age.observe(7_000, reading(41, 41))).toBe(1_000);
  });

  it('reads an oldest message older than keepMs as at least keepMs, keeping only what it needs', () => {
    const age = new BacklogAge(2_000);
    for (let t = 0; t <= 10_000; t += 500)
      expect(age.observe(t, reading(1, 1 + t))).toBeGreaterThanOrEqual(Math.min(t, 2_000) - 500);
    expect(age.observe(10_000, reading(1, 10_001))).toBeGreaterThanOrEqual(2_000);
    expect(age.observe(10_000, reading(1, 10_001))).toBeLessThanOrEqual(10_000);
  });

  it('starts again when the stream was made again (its sequences went back)', () => {
    const age = new BacklogAge(60_000);
    age.observe(0, reading(1, 1_000));
    expect(age.observe(5_000, reading(1, 1_000))).toBe(5_000);
    expect(age.observe(5_500, reading(1, 3))).toBe(0);
    expect(age.observe(6_500, reading(1, 3))).toBe(1_000);
  });

  it('never exceeds the true age, and is short of it by at most the reading interval (generated histories)', () => {
    // A history: at each reading (every `interval` ms), some messages are published (each at a time between the
    // previous reading and this one) and some of the oldest are stored.
    const step = fc.record({
      published: fc.nat(20),
      stored: fc.nat(25),
      offset: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 1_000 }),
        fc.array(step, { minLength: 1, maxLength: 80 }),
        (interval, steps) => {
          const age = new BacklogAge(10 * 60_000);
          const publishedAt: number[] = []; // publishedAt[seq - 1]
          let first = 1;
          steps.forEach((s, n) => {
            const now = (n + 1) * interval;
            for (let i = 0; i < s.published; i++) publishedAt.push(now - interval + s.offset * interval);
            first = Math.min(publishedAt.length + 1, first + s.stored);
            const last = publishedAt.length;
            const measured = age.observe(now, { first_seq: first, last_seq: last, messages: last - first + 1 });
            const truth = first > last ? 0 : now - publishedAt[first - 1]!;
            expect(measured).toBeLessThanOrEqual(truth + 1e-9);
            expect(measured).toBeGreaterThanOrEqual(truth - interval - 1e-9);
          });
        },
      ),
    );
  });
});

describe('DrainTime', () => {
  it('is the backlog over the rate the writers stored at of late', () => {
    const drain = new DrainTime(1_500);
    expect(drain.observe(0, { first_seq: 1, last_seq: 0, messages: 0 })).toBe(0);
    // 100 messages a second published, 100 a second stored, 50 waiting: half a second of work, once the rate is known.
    let waiting = 0;
    for (let t = 500; t <= 20_000; t += 500)
      waiting = drain.observe(t, { first_seq: t / 10 - 49, last_seq: t / 10, messages: 50 });
    expect(waiting).toBeGreaterThan(490);
    expect(waiting).toBeLessThan(510);
  });

  it('falls while the writers work through a backlog that gets nothing new', () => {
    const drain = new DrainTime(1_500);
    let last = 0;
    let messages = 0;
    // 200 a second published, 100 stored: the backlog grows.
    for (let t = 500; t <= 10_000; t += 500) {
      last += 100;
      messages += 50;
      drain.observe(t, { first_seq: last - messages + 1, last_seq: last, messages });
    }
    const readings: number[] = [];
    for (let t = 10_500; messages > 0; t += 500) {
      messages = Math.max(0, messages - 50);
      readings.push(drain.observe(t, { first_seq: last - messages + 1, last_seq: last, messages }));
    }
    expect(readings.at(-1)).toBe(0);
    for (let i = 1; i < readings.length; i++) expect(readings[i]!).toBeLessThan(readings[i - 1]!);
    // 1,000 messages at 100 a second: ten seconds, give or take the rate's smoothing.
    expect(readings[0]).toBeGreaterThan(8_000);
    expect(readings[0]).toBeLessThan(11_000);
  });

  it('is infinite while the writers store nothing and messages wait', () => {
    const drain = new DrainTime(1_500);
    for (let t = 0; t <= 30_000; t += 500) drain.observe(t, { first_seq: 1, last_seq: 10, messages: 10 });
    expect(drain.observe(30_500, { first_seq: 1, last_seq: 10, messages: 10 })).toBeGreaterThan(60_000);
  });
});

describe('DrainTime, stalled writers', () => {
  it('is stalled once messages waited the stall time with none stored, and no longer once one is', () => {
    const drain = new DrainTime(1_500);
    drain.observe(0, { first_seq: 1, last_seq: 100, messages: 100 });
    drain.observe(500, { first_seq: 51, last_seq: 200, messages: 150 }); // 50 stored
    for (const t of [1_000, 1_500]) {
      drain.observe(t, { first_seq: 51, last_seq: 300, messages: 250 });
      expect(drain.stalled(t)).toBe(false);
    }
    drain.observe(2_000, { first_seq: 51, last_seq: 400, messages: 350 });
    expect(drain.stalled(2_000)).toBe(true);
    // Back: the rate is what the writers store now (100 in 500 ms), not the stall's nothing.
    expect(drain.observe(2_500, { first_seq: 151, last_seq: 400, messages: 250 })).toBe(1_250);
    expect(drain.stalled(2_500)).toBe(false);
  });

  it('is not stalled with nothing waiting, however long nothing is stored', () => {
    const drain = new DrainTime(1_500);
    for (let t = 0; t <= 10_000; t += 500) drain.observe(t, { first_seq: 11, last_seq: 10, messages: 0 });
    expect(drain.stalled(10_000)).toBe(false);
    // Messages arrive: not stalled until they waited the stall time.
    drain.observe(10_500, { first_seq: 11, last_seq: 20, messages: 10 });
    expect(drain.stalled(10_500)).toBe(false);
    drain.observe(12_000, { first_seq: 11, last_seq: 20, messages: 10 });
    expect(drain.stalled(12_000)).toBe(true);
  });
});
