import { describe, expect, it } from 'vitest';
import { DeadBufferCollector, fullCollection, type ProcessMemory } from './dead-buffer-collector.js';

const MiB = 1024 * 1024;

/** Memory as a script: each reading takes the next entry; a collection sets what the next reading shows. */
function scripted(readings: Array<Partial<ProcessMemory>>, afterCollection: Partial<ProcessMemory>) {
  const full = (m: Partial<ProcessMemory>): ProcessMemory => ({ external: 0, heapTotal: 0, heapUsed: 0, ...m });
  let collections = 0;
  let next = 0;
  let collected = false;
  return {
    get collections() {
      return collections;
    },
    memory: () => {
      if (collected) {
        collected = false;
        return full(afterCollection);
      }
      return full(readings[Math.min(next++, readings.length - 1)]!);
    },
    collect: () => {
      collections++;
      collected = true;
    },
  };
}

const externals = (...mib: number[]) => mib.map((n) => ({ external: n * MiB }));
const busy = () => true;
const idle = () => false;

describe('DeadBufferCollector while requests are held', () => {
  it('collects once external memory grew by the threshold past its low-water mark, and measures from after it', () => {
    const memory = scripted(externals(40, 60, 71, 73, 80, 84), { external: 50 * MiB });
    const outcomes: Array<{ before: number; after: number }> = [];
    const collector = new DeadBufferCollector({
      growthBytes: 32 * MiB,
      intervalMs: 1000,
      busy,
      ...memory,
      onCollect: ({ before, after }) => outcomes.push({ before: before.external, after: after.external }),
    });
    const decisions = Array.from({ length: 6 }, () => collector.check());
    // 40 -> 60 -> 71 (< 40 + 32) -> 73 (>= 72: collect, now 50) -> 80 (< 82) -> 84 (>= 82: collect).
    expect(decisions).toEqual([false, false, false, true, false, true]);
    expect(memory.collections).toBe(2);
    expect(outcomes).toEqual([
      { before: 73 * MiB, after: 50 * MiB },
      { before: 84 * MiB, after: 50 * MiB },
    ]);
  });

  it("counts growth from the lowest level seen, so V8's own collections reset it", () => {
    const memory = scripted(externals(100, 20, 45, 51, 53), { external: 20 * MiB });
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy, ...memory });
    const decisions = Array.from({ length: 5 }, () => collector.check());
    // The drop to 20 MiB (a collection V8 made) is the new base: 45 and 51 are below 52, 53 is not.
    expect(decisions).toEqual([false, false, false, false, true]);
  });

  it('never collects while memory stays within the threshold', () => {
    const memory = scripted(externals(64, 90, 70, 95, 64, 95), {});
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy, ...memory });
    for (let n = 0; n < 6; n++) collector.check();
    expect(memory.collections).toBe(0);
  });
});

describe('DeadBufferCollector when the process goes idle', () => {
  it('never collects while nothing is held, however grown the heap or external memory (reads of an all process do not count)', () => {
    const grown = { external: 200 * MiB, heapTotal: 400 * MiB, heapUsed: 35 * MiB };
    const memory = scripted([{ external: 10 * MiB }, grown, grown, grown, { ...grown, external: 400 * MiB }], {});
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy: idle, ...memory });
    expect(Array.from({ length: 5 }, () => collector.check())).toEqual([false, false, false, false, false]);
    expect(memory.collections).toBe(0);
  });

  it('counts growth from where memory was while idle once requests are held again', () => {
    let holding = false;
    const memory = scripted(externals(60, 20, 20, 45, 53), { external: 20 * MiB });
    const collector = new DeadBufferCollector({
      growthBytes: 32 * MiB,
      intervalMs: 1000,
      busy: () => holding,
      ...memory,
    });
    const decisions = [collector.check(), collector.check(), collector.check()];
    holding = true;
    // 20 MiB, reached while idle, is the base: 45 is below 52, 53 is not.
    decisions.push(collector.check(), collector.check());
    expect(decisions).toEqual([false, false, false, false, true]);
  });
});

describe('fullCollection', () => {
  it("is V8's full collection: an object no longer referenced is gone after it", async () => {
    const collect = fullCollection();
    expect(collect).toBeTypeOf('function');
    let target: object | undefined = { payload: new Array(1000).fill('x') };
    const ref = new WeakRef(target);
    target = undefined;
    // A WeakRef keeps its target for the rest of the job that made or read it.
    await new Promise((resolve) => setImmediate(resolve));
    collect!();
    expect(ref.deref()).toBeUndefined();
  });
});
