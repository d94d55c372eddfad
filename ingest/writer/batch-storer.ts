/**
 * Stores one batch, in this order: the InfluxDB body (one POST), the log
 * lines (one script per task), the entity summaries (one script each, in
 * stream order), the dead letters; then acknowledges every message of the
 * batch. Nothing is acknowledged before the stores accepted it, and every
 * step retries until it succeeds (store-retry.ts).
 *
 * A body InfluxDB rejects (400) is written again message by message, in
 * order, to find the message(s) at fault: those go to the dead-letter stream
 * with their logs and summaries left out, the rest is stored.
 */
import type { NatsConnection } from 'nats';
import type { Logger } from '../../shared/observability/logger.js';
import type { DeadLetters } from './dead-letters.js';
import { isRejection, type InfluxPointWriter } from './influx-point-writer.js';
import { acknowledge } from './jetstream-delivery.js';
import type { LogSegmentAppender } from './log-segment-appender.js';
import { untilStored, type RetryOptions, type StoreName } from './store-retry.js';
import type { SummaryApplier } from './summary-applier.js';
import type { WriteBatch } from './write-batch.js';
import type { WriterMetrics } from './writer-metrics.js';

export interface BatchStores {
  influx: InfluxPointWriter;
  logs: LogSegmentAppender;
  summaries: SummaryApplier;
  deadLetters: DeadLetters;
  nc: NatsConnection;
  metrics: WriterMetrics;
  logger: Logger;
}

export async function storeBatch(batch: WriteBatch, partition: number, stores: BatchStores, retry: RetryOptions): Promise<void> {
  const { metrics } = stores;
  const timed = async <T>(store: StoreName, work: () => Promise<T>): Promise<T> => {
    const end = metrics.writeSeconds.startTimer({ store });
    try {
      return await work();
    } finally {
      end();
    }
  };

  if (batch.points.length > 0) {
    try {
      await timed('influx', () => untilStored('influx', retry, () => stores.influx.write(batch.points.bytes()), isRejection));
    } catch (error) {
      if (!isRejection(error)) throw error;
      await timed('influx', () => isolateRejected(batch, stores, retry));
    }
  }

  const excluded = new Set(batch.rejected.keys());
  if (batch.logs.size > 0) {
    await timed('redis', async () => {
      for (const [task, logs] of batch.logs) {
        let retried = false;
        await untilStored('redis', retry, () => {
          // A failed call may have run on the server: look ids up from the second try on.
          const mayExist = logs.mayExist || retried;
          retried = true;
          return stores.logs.append(task, logs, excluded, mayExist);
        });
      }
    });
  }
  if (batch.summaries.length > 0) {
    await timed('redis', async () => {
      for (const { summary, seq, owner } of batch.summaries) {
        if (!excluded.has(owner)) await untilStored('redis', retry, () => stores.summaries.apply(summary, seq));
      }
    });
  }

  for (const index of [...batch.rejected.keys()].sort((a, b) => a - b)) {
    const delivery = batch.deliveries[index]!;
    const reason = batch.rejected.get(index)!;
    await untilStored('nats', retry, () => stores.deadLetters.publish(delivery, partition, reason));
    metrics.deadLetters.inc({ reason: reason.startsWith('undecodable') ? 'undecodable' : 'rejected' });
    stores.logger.warn({ partition, streamSeq: delivery.streamSeq, reason }, 'message moved to the dead-letter stream');
  }

  await untilStored('nats', retry, () => acknowledge(stores.nc, batch.deliveries));

  let points = 0;
  let logLines = 0;
  let summaries = 0;
  for (let i = 0; i < batch.deliveries.length; i++) if (!excluded.has(i)) points += batch.pointCounts[i]!;
  for (const logs of batch.logs.values()) for (const owner of logs.owners) if (!excluded.has(owner)) logLines++;
  for (const s of batch.summaries) if (!excluded.has(s.owner)) summaries++;
  metrics.stored.inc({ kind: 'point' }, points);
  metrics.stored.inc({ kind: 'log' }, logLines);
  metrics.stored.inc({ kind: 'summary' }, summaries);
  metrics.batches.inc();
  stores.logger.debug({ partition, messages: batch.deliveries.length, points, logLines, summaries, ms: Date.now() - batch.startedAt }, 'batch stored');
}

async function isolateRejected(batch: WriteBatch, stores: BatchStores, retry: RetryOptions): Promise<void> {
  for (let i = 0; i < batch.deliveries.length; i++) {
    if (batch.rejected.has(i) || batch.pointEnds[i] === batch.pointStarts[i]) continue;
    try {
      await untilStored('influx', retry, () => stores.influx.write(batch.points.bytes(batch.pointStarts[i], batch.pointEnds[i])), isRejection);
    } catch (error) {
      if (!isRejection(error)) throw error;
      batch.rejected.set(i, `rejected by InfluxDB: ${error.message}`);
    }
  }
}
