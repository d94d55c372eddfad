/**
 * The order a batch's entity summaries may be applied in: each entity's in
 * stream order (a later summary must not overtake an earlier one: the
 * summary_seq fence would then skip the earlier one for good), different
 * entities' in any order, as they touch different keys. So the summaries go
 * in waves, the n-th summary of every entity in wave n, and a wave's script
 * calls are issued together: one socket write and one round trip instead of
 * one per summary (the writer's CPU per call fell from ~100 to ~60 µs alone).
 */
import type { BatchSummary } from './write-batch.js';

export function summaryWaves(summaries: readonly BatchSummary[]): BatchSummary[][] {
  const waves: BatchSummary[][] = [];
  const seen = new Map<string, number>();
  for (const entry of summaries) {
    const { c, n, e } = entry.summary;
    const key = `${c}\u0000${n}\u0000${e}`;
    const wave = seen.get(key) ?? 0;
    seen.set(key, wave + 1);
    (waves[wave] ??= []).push(entry);
  }
  return waves;
}
