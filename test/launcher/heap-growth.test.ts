// HEAP_GROWING_PERCENT (issue 14 item 1): the launcher sets how far V8 lets the heap grow past
// what was live before its next full collection, after the process has started. That V8 honours
// the flag set at run time is what this rests on (a later Node could read it once at start-up),
// so it is checked on the built module in fresh processes: a program that keeps objects long
// enough to promote them and then drops them is collected in full far more often with a small
// growth than with the default, on this machine's Node and on the other LTS lines the service
// supports (README, "Node.js versions"). Requires `npm run build` (npm test does it).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CHECKED_NODE_MAJORS, nodeBinary } from '../../deploy/bootstrap/node-versions.js';
import { loadConfig } from '../../shared/config/config.js';
import { root } from './launched-process.js';

const run = promisify(execFile);
const module = path.join(root, 'dist/shared/launcher/heap-growth.js');

/** Full collections of a fresh process that sets `percent` and then promotes and drops ~100 MB. */
async function fullCollections(node: string, percent: number): Promise<number> {
  const script = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { setHeapGrowingPercent } from ${JSON.stringify(module)};
    setHeapGrowingPercent(${percent});
    let majors = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
    }).observe({ entryTypes: ['gc'] });
    globalThis.live = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'live ' + i }));
    const held = [];
    for (let round = 0; round < 300; round++) {
      held.push(Array.from({ length: 10000 }, (_, i) => ({ round, i, s: 'x' + i })));
      if (held.length > 30) held.shift();
      await new Promise((r) => setImmediate(r));
    }
    // The observer hears of collections on a later turn: the last ones' entries arrive first.
    await new Promise((r) => setTimeout(r, 20));
    process.stdout.write(String(majors));
  `;
  const { stdout } = await run(node, ['--input-type=module', '-e', script], { timeout: 60_000 });
  return Number(stdout);
}

describe('HEAP_GROWING_PERCENT', () => {
  it('is 300 unless set, accepts 0 (V8 decides) and refuses what is not a percentage up to 1000', () => {
    expect(loadConfig({}).HEAP_GROWING_PERCENT).toBe(300);
    expect(loadConfig({ HEAP_GROWING_PERCENT: '0' }).HEAP_GROWING_PERCENT).toBe(0);
    for (const bad of ['-1', '1001', 'lots', '2.5']) {
      expect(() => loadConfig({ HEAP_GROWING_PERCENT: bad }), bad).toThrow(/HEAP_GROWING_PERCENT/);
    }
  });

  it.each([process.versions.node.split('.')[0], ...CHECKED_NODE_MAJORS.map(String)])(
    'set after start-up, decides how often V8 collects the whole heap (Node.js %s)',
    { timeout: 360_000 },
    async (major) => {
      const node = major === process.versions.node.split('.')[0] ? process.execPath : nodeBinary(Number(major));
      const [small, large] = await Promise.all([fullCollections(node, 10), fullCollections(node, 300)]);
      expect(large).toBeGreaterThan(0);
      expect(small).toBeGreaterThanOrEqual(3 * large);
    },
  );
});
