// A batch's entity summaries are applied in waves (summary-waves.ts): each entity's in stream order,
// since the summary_seq fence skips a summary once a later one of its entity was applied.
import { describe, expect, it } from 'vitest';
import type { EntitySummary } from '../../shared/events/wire-format.js';
import { summaryWaves } from './summary-waves.js';
import type { BatchSummary } from './write-batch.js';

const entry = (c: string, n: 't' | 'm', e: string, seq: number): BatchSummary => ({
  summary: { c, n, e, u: 'u', at: 0, scalars: [], listing: [] } satisfies EntitySummary,
  seq,
  owner: 0,
  index: seq,
});
const seqs = (waves: BatchSummary[][]) => waves.map((wave) => wave.map((s) => s.seq));

describe('summary waves', () => {
  it("puts an entity's later summaries in later waves, in stream order", () => {
    const waves = summaryWaves([
      entry('co', 't', 'a', 1),
      entry('co', 't', 'b', 2),
      entry('co', 't', 'a', 3),
      entry('co', 't', 'a', 4),
      entry('co', 't', 'b', 5),
      entry('co', 't', 'c', 6),
    ]);
    expect(seqs(waves)).toEqual([[1, 2, 6], [3, 5], [4]]);
  });

  it('tells entities apart by company, namespace and id', () => {
    const waves = summaryWaves([entry('co', 't', 'a', 1), entry('co', 'm', 'a', 2), entry('other', 't', 'a', 3)]);
    expect(seqs(waves)).toEqual([[1, 2, 3]]);
  });

  it('has no wave for a batch without summaries', () => {
    expect(summaryWaves([])).toEqual([]);
  });
});
