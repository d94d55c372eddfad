/** Prometheus metrics of the writer, on the process registry. */
import { Counter, Gauge, Histogram, type Registry } from '../../shared/observability/metrics.js';
import { DEAD_LETTER_REASONS } from './store-errors.js';

export interface WriterMetrics {
  stored: Counter<'kind'>;
  batches: Counter;
  writeSeconds: Histogram<'store'>;
  retries: Counter<'store'>;
  deadLetters: Counter<'reason'>;
  replicaWaitsFailed: Counter;
  controls: Counter<'op'>;
  partitionsOwned: Gauge;
  consumerPending: Gauge<'partition'>;
  lagSeconds: Gauge<'partition'>;
  ackFloor: Gauge<'partition'>;
}

export function createWriterMetrics(registry: Registry): WriterMetrics {
  const registers = [registry];
  const metrics: WriterMetrics = {
    stored: new Counter({
      name: 'clearml_writer_events_stored_total',
      help: 'Records stored, by kind (point, log, summary)',
      labelNames: ['kind'],
      registers,
    }),
    batches: new Counter({ name: 'clearml_writer_batches_total', help: 'Batches stored and acknowledged', registers }),
    writeSeconds: new Histogram({
      name: 'clearml_writer_store_write_seconds',
      help: 'Duration of one batch write to a store (retries included)',
      labelNames: ['store'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    retries: new Counter({
      name: 'clearml_writer_store_retries_total',
      help: 'Failed store writes that were retried, by store',
      labelNames: ['store'],
      registers,
    }),
    deadLetters: new Counter({
      name: 'clearml_writer_dead_letters_total',
      help: 'Records (or undecodable messages) moved to the dead-letter stream, by reason',
      labelNames: ['reason'],
      registers,
    }),
    replicaWaitsFailed: new Counter({
      name: 'clearml_writer_replica_waits_failed_total',
      help: 'Batches whose Redis writes did not reach the replicas asked for in time (stored again by a restarted partition)',
      registers,
    }),
    controls: new Counter({
      name: 'clearml_writer_control_requests_total',
      help: 'Deletion requests executed, by operation',
      labelNames: ['op'],
      registers,
    }),
    partitionsOwned: new Gauge({
      name: 'clearml_writer_partitions_owned',
      help: 'Stream partitions this writer consumes',
      registers,
    }),
    consumerPending: new Gauge({
      name: 'clearml_writer_consumer_pending_messages',
      help: 'Messages of an owned partition not yet acknowledged (waiting plus in flight), sampled',
      labelNames: ['partition'],
      registers,
    }),
    lagSeconds: new Gauge({
      name: 'clearml_writer_lag_seconds',
      help: 'How long the oldest message of an owned partition not yet stored has waited in JetStream (0 when caught up), sampled',
      labelNames: ['partition'],
      registers,
    }),
    ackFloor: new Gauge({
      name: 'clearml_writer_ack_floor_sequence',
      help: 'Stream sequence up to which an owned partition is stored and acknowledged, sampled: stands still while the partition stalls',
      labelNames: ['partition'],
      registers,
    }),
  };
  // Every reason from the start at 0: an alert on increase() sees the first dead letter.
  for (const reason of DEAD_LETTER_REASONS) metrics.deadLetters.inc({ reason }, 0);
  return metrics;
}
