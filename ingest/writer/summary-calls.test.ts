// A batch's entity summaries as script calls (summary-calls.ts): each entity's in stream order, those of
// a current ingest merged, in waves. What a merged call stores is checked against Redis in
// test/pipeline/writer-summary-merging.test.ts.
import { describe, expect, it } from 'vitest';
import type { EntitySummary } from '../../shared/events/wire-format.js';
import { CHUNK, summaryCall, summaryGroupWaves } from './summary-calls.js';
import type { BatchSummary } from './write-batch.js';

const entry = (c: string, n: 't' | 'm', e: string, seq: number, over: Partial<EntitySummary> = {}): BatchSummary => ({
  summary: { c, n, e, u: 'u', at: 0, maxIter: null, scalars: [], listing: [], images: [], ...over },
  seq,
  owner: 0,
  index: seq,
});
const seqs = (waves: BatchSummary[][][]) => waves.map((wave) => wave.map((group) => group.map((s) => s.seq)));

describe('summary calls', () => {
  it("merge an entity's summaries in stream order; entities apart by company, namespace and id", () => {
    const waves = summaryGroupWaves([
      entry('co', 't', 'a', 1),
      entry('co', 't', 'b', 2),
      entry('co', 't', 'a', 3),
      entry('co', 'm', 'a', 4),
      entry('other', 't', 'a', 5),
      entry('co', 't', 'a', 6),
    ]);
    expect(seqs(waves)).toEqual([[[1, 3, 6], [2], [4], [5]]]);
  });

  it('keep a summary of an older ingest (no images or greatest iteration) or of several chunks in a call of its own, later ones in later waves', () => {
    const many = Array.from({ length: CHUNK + 1 }, (_, i) => ['log', 'm', `v${i}`, 1] as [string, string, string, 1]);
    const { images: _i, ...noImages } = entry('co', 't', 'a', 2).summary;
    const { maxIter: _m, ...noMaxIter } = entry('co', 't', 'a', 5).summary;
    const waves = summaryGroupWaves([
      entry('co', 't', 'a', 1),
      { ...entry('co', 't', 'a', 2), summary: noImages },
      entry('co', 't', 'a', 3),
      entry('co', 't', 'a', 4, { listing: many }),
      { ...entry('co', 't', 'a', 5), summary: noMaxIter },
      entry('co', 't', 'a', 6),
      entry('co', 't', 'a', 7),
      entry('co', 't', 'b', 8),
    ]);
    expect(seqs(waves)).toEqual([[[1], [8]], [[2]], [[3]], [[4]], [[5]], [[6, 7]]]);
  });

  it('bound a merged call to a chunk of scalars or listing entries', () => {
    const listing = Array.from({ length: 400 }, (_, i) => ['log', 'm', `v${i}`, 1] as [string, string, string, 1]);
    const waves = summaryGroupWaves([1, 2, 3, 4].map((seq) => entry('co', 't', 'a', seq, { listing })));
    expect(seqs(waves)).toEqual([[[1, 2]], [[3, 4]]]);
  });

  it('have no wave for a batch without summaries', () => {
    expect(summaryGroupWaves([])).toEqual([]);
  });

  it('take the latest receive time with the user of the last summary that has it, and the greatest iterations', () => {
    const call = summaryCall(
      [
        entry('co', 't', 'a', 1, { at: 5, u: 'alice', lastIter: 9, maxIter: null }),
        entry('co', 't', 'a', 2, { at: 7, u: 'bob', maxIter: 4 }),
        entry('co', 't', 'a', 3, { at: 7, u: 'carol', lastIter: 3, maxIter: 2 }),
        entry('co', 't', 'a', 4, { at: 6, u: 'dave', maxIter: null }),
      ],
      0,
      () => '[]',
    );
    expect(call).toMatchObject({ seq: 4, firstSeq: 1, at: 7, user: 'carol', lastIter: 9, maxIter: 4 });
    expect(call.scalarAt).toBeUndefined();
  });
});
