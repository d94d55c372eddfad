// A seeded fuzz run of about 1,000 hostile requests over HTTP and gRPC, across every operation, against the
// built `all` target as a child process on the suite's stack (issue 10, item 6): no 5xx, no hang, no crash, every
// writer partition drained, every acknowledged well-formed event readable once, companies isolated; and a
// shorter one in companion mode, every entity fact asked of the ClearML stand-in (fuzz-companion.ts).
// The same code as `npm run fuzz` (docs/fuzzing.md). Requires `npm run build` (npm test does it).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, inject, it } from 'vitest';
import '../harness/stack-context.js';
import { printReport, summaryLine } from './fuzz-report.js';
import { caseArbitrary, caseSeed, runFuzz } from './fuzz-runner.js';
import { FuzzService } from './fuzz-service.js';
import { FuzzCompanion } from './fuzz-companion.js';

const SEED = 20_261_124;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('fuzz', () => {
  it('generates the same request for the same seed and index, whatever the run length', () => {
    const { arbitrary } = caseArbitrary(new Set());
    const render = (i: number) =>
      JSON.stringify(fc.sample(arbitrary, { seed: caseSeed(SEED, i), numRuns: 1 })[0], (_k, v) =>
        typeof v === 'bigint' ? `${v}n` : v,
      );
    expect([17, 404, 999].map(render)).toEqual([17, 404, 999].map(render));
    expect(render(17)).not.toEqual(render(18));
  });

  it('1,000 seeded hostile requests: no 5xx, hang or crash; partitions drained; acknowledged events readable; companies isolated', async () => {
    await seededRun(1_000);
  }, 120_000);

  it('companion mode, 500 seeded hostile requests: the same, with every entity fact from the ClearML stand-in', async () => {
    const companion = new FuzzCompanion();
    await companion.start();
    try {
      await seededRun(500, companion);
      // Entity facts really came from the stand-in, for the hostile requests as for setup.
      expect(companion.clearml.callCount('tasks.get_all_ex')).toBeGreaterThan(100);
      expect(companion.clearml.callCount('models.get_all_ex')).toBeGreaterThan(0);
    } finally {
      await companion.stop();
    }
  }, 120_000);
});

async function seededRun(requests: number, companion?: FuzzCompanion): Promise<void> {
  const stack = inject('stack');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'clearml-fuzz-test-'));
  dirs.push(dir);
  const deadlineMs = 20_000;
  const service = new FuzzService(stack, dir, {
    maxBodyBytes: 256 * 1024,
    maxLineBytes: 16 * 1024,
    partitions: 8,
    env: companion?.env(deadlineMs),
  });
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  await service.start();
  try {
    const report = await runFuzz(service, stack, {
      requests,
      seed: SEED,
      timeLimitMs: 45_000,
      concurrency: 8,
      deadlineMs,
      slowMs: 5_000,
      maxLingering: 64,
      drainDeadlineMs: 10_000,
      readbackDeadlineMs: 5_000,
      maxRestarts: 3,
      skip: new Set(),
      wellFormedEvery: 10,
      progressEveryMs: 10_000,
      log,
      companion,
    });
    printReport(report, log);
    log(summaryLine(report));
    const uncovered = Object.entries(report.coverage)
      .filter(([, n]) => n === 0)
      .map(([op]) => op);
    const counts = {
      requests: report.requests,
      status_5xx: report.status5xx,
      hangs: report.hangs,
      crashes: report.crashes,
      acked_unreadable: report.ackedUnreadable,
      partitions_stalled: report.partitionsStalled,
      isolation_violations: report.isolationViolations.length,
      uncovered_operations: uncovered,
      fuzzer_errors: report.fuzzerErrors,
      setup_problems: report.setupProblems,
    };
    expect(counts, lines.join('\n')).toEqual({
      requests,
      status_5xx: 0,
      hangs: 0,
      crashes: 0,
      acked_unreadable: 0,
      partitions_stalled: 0,
      isolation_violations: 0,
      uncovered_operations: [],
      fuzzer_errors: [],
      setup_problems: [],
    });
    expect(report.wellFormed.acked).toBeGreaterThan(0);
  } finally {
    await service.stop();
  }
}
