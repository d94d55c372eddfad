/**
 * Writes a batch's records to one store, and when the store refuses for good
 * (StoreRefused), finds the record(s) at fault and refuses only those: every
 * other record of the batch is stored.
 *
 * - InfluxDB: the body is bisected until the refused points stand alone.
 *   InfluxDB 1.x stores the good points of a refused body anyway ("partial
 *   write"); writing them again overwrites them with themselves, and halves
 *   are written left before right, so the last write of every point keeps
 *   stream order.
 * - Logs: a task's lines go in one script; when it is refused, each line is
 *   appended alone, looking its id up first (the refused call may have
 *   appended the lines before the one at fault).
 * - Summaries: each chunk is one script, which refuses before writing
 *   anything; the refused chunks are dead-lettered as a summary of their own.
 *   Summaries merged into one call (summary-calls.ts) are applied one by one
 *   when the call is refused, so that only the one at fault is refused.
 */
import { frameRecord } from '../../shared/events/wire-format.js';
import type { InfluxPointWriter } from './influx-point-writer.js';
import type { LogSegmentAppender } from './log-segment-appender.js';
import { StoreRefused, untilStored, type RetryOptions } from './store-retry.js';
import { summaryPart, type SummaryApplier } from './summary-applier.js';
import { chunkCount } from './summary-calls.js';
import type { BatchSummary, TaskLogs, WriteBatch } from './write-batch.js';

/** Writes points [from, to) of the batch; answers how many were refused. */
export async function writePoints(
  batch: WriteBatch,
  influx: InfluxPointWriter,
  retry: RetryOptions,
  from = 0,
  to = batch.pointCount,
): Promise<number> {
  if (from >= to) return 0;
  try {
    // The fence again once the write has its InfluxDB slot: waiting for one can take a while.
    await untilStored('influx', retry, () => influx.write(batch.pointBytes(from, to), () => retry.fence?.pass()));
    return 0;
  } catch (error) {
    if (!(error instanceof StoreRefused)) throw error;
    if (to - from === 1) {
      batch.refuse({
        owner: batch.pointOwners[from]!,
        index: batch.pointIndexes[from]!,
        reason: error.reason,
        detail: error.detail,
      });
      return 1;
    }
    const mid = (from + to) >>> 1;
    const left = await writePoints(batch, influx, retry, from, mid);
    return left + (await writePoints(batch, influx, retry, mid, to));
  }
}

/** Appends a task's lines; answers how many were refused. */
export async function appendTaskLogs(
  batch: WriteBatch,
  task: string,
  logs: TaskLogs,
  appender: LogSegmentAppender,
  retry: RetryOptions,
): Promise<number> {
  const lines = logs.seqs.map((_, i) => i);
  let retried = false;
  try {
    await untilStored('redis', retry, () => {
      // A failed call may have run on the server: look ids up from the second try on.
      const mayExist = logs.mayExist || retried;
      retried = true;
      return appender.append(task, logs, lines, mayExist);
    });
    return 0;
  } catch (error) {
    if (!(error instanceof StoreRefused)) throw error;
  }
  let refused = 0;
  for (const i of lines) {
    try {
      await untilStored('redis', retry, () => appender.append(task, logs, [i], true));
    } catch (error) {
      if (!(error instanceof StoreRefused)) throw error;
      batch.refuse({ owner: logs.owners[i]!, index: logs.indexes[i]!, reason: error.reason, detail: error.detail });
      refused++;
    }
  }
  return refused;
}

/**
 * Applies one entity's summaries (stream order) in one call, or one by one when they are a single
 * summary, when the call was refused, or when only some of them were applied before (a batch stored
 * again); answers how many were applied now.
 */
export async function applySummaryGroup(
  batch: WriteBatch,
  group: readonly BatchSummary[],
  applier: SummaryApplier,
  retry: RetryOptions,
): Promise<number> {
  if (group.length > 1) {
    try {
      const outcome = await untilStored('redis', retry, () => applier.applyMerged(group));
      if (outcome === 'applied') return group.length;
      if (outcome === 'skipped') return 0;
    } catch (error) {
      if (!(error instanceof StoreRefused)) throw error;
    }
  }
  let applied = 0;
  for (const entry of group) if (await applySummary(batch, entry, applier, retry)) applied++;
  return applied;
}

/** Applies a summary chunk by chunk; answers false when some chunk was refused (and dead-lettered). */
export async function applySummary(
  batch: WriteBatch,
  entry: BatchSummary,
  applier: SummaryApplier,
  retry: RetryOptions,
): Promise<boolean> {
  const { summary, seq } = entry;
  const chunks = chunkCount(summary);
  const failed: number[] = [];
  let first: StoreRefused | undefined;
  for (let chunk = 0; chunk < chunks; chunk++) {
    try {
      await untilStored('redis', retry, () => applier.applyChunk(summary, seq, chunk));
    } catch (error) {
      if (!(error instanceof StoreRefused)) throw error;
      failed.push(chunk);
      first ??= error;
    }
  }
  if (!first) return true;
  const record = failed.length === chunks ? undefined : frameRecord('R', JSON.stringify(summaryPart(summary, failed)));
  const detail = failed.length === chunks ? first.detail : `chunks ${failed.join(', ')} of ${chunks}: ${first.detail}`;
  batch.refuse({ owner: entry.owner, index: entry.index, reason: first.reason, detail, record });
  return false;
}
