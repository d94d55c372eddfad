// READ_MAX_RUNNING_CALLS / READ_MAX_WAITING_CALLS (and the same for deletions): a process runs at most `limit` calls at once, a quarter of them per
// company; the rest wait in their company's line, served in turn between companies; a full line refuses (429).
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../errors/error-catalogue.js';
import { FairCallSlots, type SlotRelease } from './fair-call-slots.js';

const READS = {
  name: 'read',
  limitSetting: 'READ_MAX_RUNNING_CALLS',
  waitingSetting: 'READ_MAX_WAITING_CALLS',
  refusal: 'too_many_reads',
} as const;

/** Acquires, recording the order in which grants come. */
function asker(slots: FairCallSlots, granted: string[]) {
  return (company: string, label = company, signal = new AbortController().signal) => {
    const call = { release: undefined as SlotRelease | undefined, error: undefined as unknown };
    slots.acquire(company, signal).then(
      (release) => {
        call.release = release;
        granted.push(label);
      },
      (error: unknown) => (call.error = error),
    );
    return call;
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('FairCallSlots', () => {
  it("a company runs at most a quarter of the slots; another company's read runs at once beside it", async () => {
    const granted: string[] = [];
    const slots = new FairCallSlots(READS, 8, 100);
    const ask = asker(slots, granted);
    const a = Array.from({ length: 5 }, (_, i) => ask('a', `a${i}`));
    await settle();
    expect(granted).toEqual(['a0', 'a1']);
    const b = ask('b');
    await settle();
    expect(granted).toEqual(['a0', 'a1', 'b']);
    expect([slots.runningCount, slots.waitingTotal]).toEqual([3, 3]);
    a[0]!.release!();
    a[0]!.release!();
    await settle();
    expect(granted).toEqual(['a0', 'a1', 'b', 'a2']);
    b.release!();
    await settle();
    expect(slots.runningCount).toBe(2);
  });

  it("freed slots go to the waiting companies in turn, whoever asked first: b waits for one of a's reads, not all", async () => {
    const granted: string[] = [];
    const slots = new FairCallSlots(READS, 8, 400);
    const ask = asker(slots, granted);
    // Four companies fill the eight slots (two each); a queues 6 more before b and c ask.
    const first = ['a', 'a', 'x', 'x', 'y', 'y', 'z', 'z'].map((company) => ask(company));
    const a = Array.from({ length: 6 }, (_, i) => ask('a', `a${i}`));
    const b = [ask('b', 'b0'), ask('b', 'b1')];
    const c = [ask('c', 'c0')];
    await settle();
    expect(granted).toHaveLength(8);
    for (const call of first.slice(0, 4)) {
      call.release!();
      await settle();
    }
    expect(granted.slice(8)).toEqual(['a0', 'b0', 'c0', 'a1']);
    // b's turn comes before a's again; c has nothing left; a runs two at most.
    for (const call of [a[0]!, b[0]!, c[0]!, a[1]!]) {
      call.release!();
      await settle();
    }
    expect(granted.slice(12)).toEqual(['b1', 'a2', 'a3']);
    expect([slots.runningCount, slots.waitingTotal]).toEqual([7, 2]);
  });

  it("a full line refuses its company's next read with 429 and Retry-After; other companies still wait and run", async () => {
    const registry = new Registry();
    const slots = new FairCallSlots(READS, 4, 8, registry);
    const ask = asker(slots, []);
    const running = ask('a');
    const waiting = [ask('a'), ask('a')];
    const refused = ask('a');
    const other = ask('b');
    await settle();
    expect(isApiError(refused.error)).toBe(true);
    const error = refused.error as { httpStatus: number; id: string; headers: Record<string, string> };
    expect([error.httpStatus, error.id, error.headers['retry-after']]).toEqual([429, 'too_many_reads', '1']);
    expect(other.release).toBeDefined();
    expect(waiting.map((w) => w.release)).toEqual([undefined, undefined]);
    expect(await registry.getSingleMetricAsString('clearml_read_calls_refused_total')).toMatch(/ 1$/);
    expect(await registry.getSingleMetricAsString('clearml_read_calls_waiting')).toMatch(/ 2$/);
    running.release!();
    await settle();
    expect(waiting[0]!.release).toBeDefined();
    expect(ask('a').error).toBeUndefined();
  });

  it('a caller that goes away while waiting leaves the line with the reason, and takes no slot', async () => {
    const slots = new FairCallSlots(READS, 4, 8);
    const granted: string[] = [];
    const ask = asker(slots, granted);
    const running = ask('a', 'running');
    const gone = new AbortController();
    const leaving = ask('a', 'leaving', gone.signal);
    const staying = ask('a', 'staying');
    gone.abort(new Error('client gone'));
    await settle();
    expect((leaving.error as Error).message).toBe('client gone');
    expect(slots.waitingTotal).toBe(1);
    running.release!();
    await settle();
    expect(granted).toEqual(['running', 'staying']);
    staying.release!();
    expect([slots.runningCount, slots.waitingTotal]).toEqual([0, 0]);
    const aborted = new AbortController();
    aborted.abort(new Error('already gone'));
    await expect(slots.acquire('a', aborted.signal)).rejects.toThrow('already gone');
  });

  it('under any mix of reads, releases and departures: bounds hold, no slot idles while a read could use it, all ends', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('ask' as const), company: fc.constantFrom('a', 'b', 'c', 'd', 'e') }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('leave' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(step),
        async (limit, maxWaiting, steps) => {
          const slots = new FairCallSlots(READS, limit, maxWaiting);
          const calls: { company: string; release?: SlotRelease; error?: unknown; leave: AbortController }[] = [];
          const running = new Map<string, number>();
          const check = () => {
            const runningCalls = calls.filter((c) => c.release && c.error === undefined);
            const waitingCalls = calls.filter((c) => !c.release && c.error === undefined);
            for (const company of new Set(calls.map((c) => c.company)))
              running.set(company, runningCalls.filter((c) => c.company === company).length);
            expect(runningCalls.length).toBe(slots.runningCount);
            expect(waitingCalls.length).toBe(slots.waitingTotal);
            expect(slots.runningCount).toBeLessThanOrEqual(limit);
            for (const count of running.values()) expect(count).toBeLessThanOrEqual(slots.perCompany);
            // Work-conserving: a read waits only while the process or its company has no slot left.
            if (slots.runningCount < limit)
              for (const call of waitingCalls) expect(running.get(call.company)).toBe(slots.perCompany);
          };
          for (const s of steps) {
            if (s.kind === 'ask') {
              const call: (typeof calls)[number] = { company: s.company, leave: new AbortController() };
              calls.push(call);
              slots.acquire(s.company, call.leave.signal).then(
                (release) => (call.release = release),
                (error: unknown) => (call.error = error),
              );
            } else {
              const live = calls.filter((c) => c.error === undefined && (s.kind === 'release') === !!c.release);
              const call = live[s.pick % Math.max(1, live.length)];
              if (call && s.kind === 'release') {
                call.release!();
                call.error = 'done';
              } else if (call) call.leave.abort(new Error('gone'));
            }
            await settle();
            check();
          }
          for (const call of calls) if (!call.release && call.error === undefined) call.leave.abort(new Error('gone'));
          await settle();
          for (const call of calls) if (call.release && call.error === undefined) call.release();
          await settle();
          expect([slots.runningCount, slots.waitingTotal]).toEqual([0, 0]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
