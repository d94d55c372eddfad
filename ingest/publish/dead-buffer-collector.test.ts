import { describe, expect, it } from 'vitest';
import { DeadBufferCollector, fullCollection } from './dead-buffer-collector.js';

const MiB = 1024 * 1024;

/** External memory as a script: each reading takes the next value; a collection sets what follows it. */
function scripted(readings: number[], afterCollection: number) {
  let collections = 0;
  let next = 0;
  let collected = false;
  return {
    get collections() {
      return collections;
    },
    externalBytes: () => {
      if (collected) {
        collected = false;
        return afterCollection;
      }
      return readings[Math.min(next++, readings.length - 1)]!;
    },
    collect: () => {
      collections++;
      collected = true;
    },
  };
}

describe('DeadBufferCollector', () => {
  it('collects once external memory grew by the threshold past its low-water mark, and measures from after it', () => {
    const memory = scripted([40 * MiB, 60 * MiB, 71 * MiB, 73 * MiB, 80 * MiB, 84 * MiB], 50 * MiB);
    const outcomes: Array<{ beforeBytes: number; afterBytes: number }> = [];
    const collector = new DeadBufferCollector({
      growthBytes: 32 * MiB,
      intervalMs: 1000,
      ...memory,
      onCollect: ({ beforeBytes, afterBytes }) => outcomes.push({ beforeBytes, afterBytes }),
    });
    const decisions = Array.from({ length: 6 }, () => collector.check());
    // 40 -> 60 -> 71 (< 40 + 32) -> 73 (>= 72: collect, now 50) -> 80 (< 82) -> 84 (>= 82: collect).
    expect(decisions).toEqual([false, false, false, true, false, true]);
    expect(memory.collections).toBe(2);
    expect(outcomes).toEqual([
      { beforeBytes: 73 * MiB, afterBytes: 50 * MiB },
      { beforeBytes: 84 * MiB, afterBytes: 50 * MiB },
    ]);
  });

  it("counts growth from the lowest level seen, so V8's own collections reset it", () => {
    const memory = scripted([100 * MiB, 20 * MiB, 45 * MiB, 51 * MiB, 53 * MiB], 20 * MiB);
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, ...memory });
    const decisions = Array.from({ length: 5 }, () => collector.check());
    // The drop to 20 MiB (a collection V8 made) is the new base: 45 and 51 are below 52, 53 is not.
    expect(decisions).toEqual([false, false, false, false, true]);
  });

  it('never collects while memory stays within the threshold', () => {
    const memory = scripted([64 * MiB, 90 * MiB, 70 * MiB, 95 * MiB, 64 * MiB, 95 * MiB], 0);
    const collector = new DeadBufferCollector({ growthBytes: 32 * MiB, intervalMs: 1000, ...memory });
    for (let n = 0; n < 6; n++) collector.check();
    expect(memory.collections).toBe(0);
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
