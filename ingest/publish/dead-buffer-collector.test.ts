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
    const outcomes: Array<{ trigger: string; before: number; after: number }> = [];
    const collector = new DeadBufferCollector({
      growthBytes: 32 * MiB,
      intervalMs: 1000,
      busy,
      ...memory,
      onCollect: ({ trigger, before, after }) =>
        outcomes.push({ trigger, before: before.external, after: after.external }),
    });
    const decisions = Array.from({ length: 6 }, () => collector.check());
    // 40 -> 60 -> 71 (< 40 + 32) -> 73 (>= 72: collect, now 50) -> 80 (< 82) -> 84 (>= 82: collect).
    expect(decisions).toEqual([undefined, undefined, undefined, 'growth', undefined, 'growth']);
    expect(memory.collections).toBe(2);
    expect(outcomes).toEqual([
      { trigger: 'growth', before: 73 * MiB, after: 50 * MiB },
      { trigger: 'growth', before: 84 * MiB, after: 50 * MiB },
    ]);
  });

  it("counts growth from the lowest level seen, so V8's own collections reset it", () => {
    const memory = scripted(externals(100, 20, 45, 51, 53), { external: 20 * MiB });
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy, ...memory });
    const decisions = Array.from({ length: 5 }, () => collector.check());
    // The drop to 20 MiB (a collection V8 made) is the new base: 45 and 51 are below 52, 53 is not.
    expect(decisions).toEqual([undefined, undefined, undefined, undefined, 'growth']);
  });

  it('never collects while memory stays within the threshold', () => {
    const memory = scripted(externals(64, 90, 70, 95, 64, 95), {});
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy, ...memory });
    for (let n = 0; n < 6; n++) collector.check();
    expect(memory.collections).toBe(0);
  });
});

describe('DeadBufferCollector when the process goes idle', () => {
  const bloated = { external: 20 * MiB, heapTotal: 170 * MiB, heapUsed: 100 * MiB };

  it('collects once an idle spell has lasted a whole interval, if the heap grew by the threshold past what was live', () => {
    const memory = scripted([bloated], { external: 20 * MiB, heapTotal: 40 * MiB, heapUsed: 35 * MiB });
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy: idle, ...memory });
    // The first idle reading may be a gap between two requests; the second is a spell. Then nothing more this spell.
    expect([collector.check(), collector.check(), collector.check(), collector.check()]).toEqual([
      undefined,
      'idle',
      undefined,
      undefined,
    ]);
  });

  it('collects again only after a busy reading, and only when the heap grew by the threshold past the live heap', () => {
    let holding = false;
    const memory = scripted(
      [
        bloated,
        bloated,
        // after the first collection (live 35 MiB): busy, then idle with a heap of 60 MiB (< 35 + 32), then of 70
        { heapTotal: 60 * MiB },
        { heapTotal: 60 * MiB },
        { heapTotal: 60 * MiB },
        { heapTotal: 70 * MiB },
        { heapTotal: 70 * MiB },
        { heapTotal: 70 * MiB },
      ],
      { heapTotal: 40 * MiB, heapUsed: 35 * MiB },
    );
    const collector = new DeadBufferCollector({
      growthBytes: 32 * MiB,
      intervalMs: 1000,
      busy: () => holding,
      ...memory,
    });
    const decisions = [collector.check(), collector.check()];
    holding = true;
    decisions.push(collector.check());
    holding = false;
    decisions.push(collector.check(), collector.check());
    holding = true;
    decisions.push(collector.check());
    holding = false;
    decisions.push(collector.check(), collector.check());
    expect(decisions).toEqual([undefined, 'idle', undefined, undefined, undefined, undefined, undefined, 'idle']);
    expect(memory.collections).toBe(2);
  });

  it('does not collect for external growth while idle (reads of an all process do not count)', () => {
    const memory = scripted(externals(10, 200, 400), {});
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, busy: idle, ...memory });
    // The heap reads 0: the idle trigger has nothing to give back either.
    expect([collector.check(), collector.check(), collector.check()]).toEqual([undefined, undefined, undefined]);
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
