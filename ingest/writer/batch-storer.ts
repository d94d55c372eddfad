/**
 * Stores one batch, in this order: the InfluxDB body (one POST), the log
 * lines (one script per task, all tasks at once), the entity summaries (each
 * entity's in stream order, merged where that keeps their meaning: summary-calls.ts), then,
 * when Redis has replicas, waits until they have those writes
 * (replica-sync.ts), the dead letters; then acknowledges every message of
 * the batch. Nothing is acknowledged before the stores accepted it (on the
 * replicas asked for) or it was dead-lettered.
 *
 * Transient store errors are retried (store-retry.ts); a store refusing
 * for good costs only the record at fault (record-isolation.ts), which goes
 * to the dead-letter stream with its reason, a count, and a log line.
 */
import type { NatsConnection } from 'nats';
import type { Logger } from '../../shared/observability/logger.js';
import type { DeadLetters } from './dead-letters.js';
import type { InfluxPointWriter } from './influx-point-writer.js';
import { ackPolicy, acknowledge } from './jetstream-delivery.js';
import type { LogSegmentAppender } from './log-segment-appender.js';
import type { ReplicaSync } from './replica-sync.js';
import { appendTaskLogs, applySummaryGroup, writePoints } from './record-isolation.js';
import { StoreRefused, untilStored, type RetryOptions, type StoreName } from './store-retry.js';
import type { SummaryApplier } from './summary-applier.js';
import { summaryGroupWaves } from './summary-calls.js';
import type { WriteBatch } from './write-batch.js';
import type { WriterMetrics } from './writer-metrics.js';

export interface BatchStores {
  influx: InfluxPointWriter;
  logs: LogSegmentAppender;
  summaries: SummaryApplier;
  replicas: ReplicaSync;
  deadLetters: DeadLetters;
  nc: NatsConnection;
  /** WriterSettings.noConsumerAfterMs: how long acks answered "no responders" are retried. */
  noConsumerAfterMs: number;
  metrics: WriterMetrics;
  logger: Logger;
}

export async function storeBatch(
  batch: WriteBatch,
  partition: number,
  stores: BatchStores,
  retry: RetryOptions,
): Promise<void> {
  const { metrics } = stores;
  const timed = async <T>(store: StoreName, work: () => Promise<T>): Promise<T> => {
    const end = metrics.writeSeconds.startTimer({ store });
    try {
      return await work();
    } finally {
      end();
    }
  };

  let points = batch.pointCount;
  if (points > 0) points -= await timed('influx', () => writePoints(batch, stores.influx, retry));
  let logLines = batch.logLines;
  if (batch.logs.size > 0) {
    // Tasks' streams are independent keys: their scripts go out together (one round trip).
    const refused = await timed('redis', () =>
      settleAll([...batch.logs].map(([task, logs]) => appendTaskLogs(batch, task, logs, stores.logs, retry))),
    );
    for (const count of refused) logLines -= count;
  }
  let summaries = 0;
  if (batch.summaries.length > 0) {
    await timed('redis', async () => {
      for (const wave of summaryGroupWaves(batch.summaries))
        for (const applied of await settleAll(
          wave.map((group) => applySummaryGroup(batch, group, stores.summaries, retry)),
        ))
          summaries += applied;
    });
  }

  if (stores.replicas.needed(batch)) {
    // Not retried here: after a failover a second WAIT would ask the new master, which may lack
    // the writes. The partition starts over instead and stores the unacknowledged batch again.
    await timed('redis', () => stores.replicas.confirm(batch)).catch((error: unknown) => {
      metrics.replicaWaitsFailed.inc();
      throw error;
    });
  }
  await deadLetter(batch, partition, stores, retry);
  await untilStored('nats', retry, () => acknowledge(stores.nc, batch.deliveries), ackPolicy(stores.noConsumerAfterMs));

  metrics.stored.inc({ kind: 'point' }, points);
  metrics.stored.inc({ kind: 'log' }, logLines);
  metrics.stored.inc({ kind: 'summary' }, summaries);
  metrics.batches.inc();
  const seqs = [batch.deliveries[0]?.streamSeq, batch.deliveries.at(-1)?.streamSeq];
  stores.logger.debug(
    {
      partition,
      messages: batch.deliveries.length,
      seqs,
      points,
      logLines,
      summaries,
      ms: Date.now() - batch.startedAt,
      ...retry.fence?.take(),
    },
    'batch stored',
  );
}

/**
 * Every call's result once all have settled, or the first failure: no call of
 * the batch is still retrying when the caller gives the batch up.
 */
async function settleAll<T>(calls: ReadonlyArray<Promise<T>>): Promise<T[]> {
  const settled = await Promise.allSettled(calls);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

async function deadLetter(
  batch: WriteBatch,
  partition: number,
  stores: BatchStores,
  retry: RetryOptions,
): Promise<void> {
  const refusals = [...batch.refusals].sort((a, b) => a.owner - b.owner || (a.index ?? -1) - (b.index ?? -1));
  for (const refusal of refusals) {
    const delivery = batch.deliveries[refusal.owner]!;
    const where = {
      partition,
      streamSeq: delivery.streamSeq,
      recordIndex: refusal.index,
      reason: refusal.reason,
      detail: refusal.detail,
    };
    try {
      const company = await untilStored('nats', retry, () =>
        stores.deadLetters.publish({ ...refusal, delivery, partition }),
      );
      stores.metrics.deadLetters.inc({ reason: refusal.reason });
      stores.logger.warn(
        { ...where, company },
        refusal.index === undefined
          ? 'message moved to the dead-letter stream'
          : 'record moved to the dead-letter stream',
      );
    } catch (error) {
      // Only a bug of ours can refuse a dead letter for good: keep the partition going, and say so loudly.
      if (!(error instanceof StoreRefused)) throw error;
      stores.logger.error({ ...where, err: error }, 'record refused and not dead-lettered: it is dropped');
    }
  }
}
