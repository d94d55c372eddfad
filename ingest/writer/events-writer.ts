/**
 * The writer of one process: creates the event streams, joins the writers
 * sharing the partitions (partition-ownership.ts), and runs one
 * PartitionWorker per partition it owns, all sharing the store clients and
 * the process-wide limit on InfluxDB writes in flight.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ensureEventStreams } from '../../shared/events/event-streams.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import type { Component, ReadinessCheck } from '../../shared/launcher/component.js';
import type { ProcessServices } from '../../shared/launcher/target.js';
import type { BatchStores } from './batch-storer.js';
import { ConsumerLagSampler } from './consumer-lag-sampler.js';
import { ControlExecutor } from './control-executor.js';
import { ControlRunner } from './control-runner.js';
import { DeadLetters } from './dead-letters.js';
import { InfluxPointWriter } from './influx-point-writer.js';
import { LogSegmentAppender } from './log-segment-appender.js';
import { PartitionLeases } from './partition-leases.js';
import { PartitionOwnership } from './partition-ownership.js';
import { PartitionWorker } from './partition-worker.js';
import { nodesOfClient, ReplicaSync } from './replica-sync.js';
import { SummaryApplier } from './summary-applier.js';
import { writerKeys } from './writer-keys.js';
import { createWriterMetrics } from './writer-metrics.js';
import { writerSettings } from './writer-settings.js';

export interface EventsWriter {
  component: Component;
  readiness: ReadinessCheck;
}

export function createEventsWriter(services: ProcessServices): EventsWriter {
  const settings = writerSettings(services.config);
  const metrics = createWriterMetrics(services.metrics);
  const writerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const logger = services.logger.child({ component: 'writer', writer: writerId });
  const workers = new Map<number, PartitionWorker>();
  let ownership: PartitionOwnership | undefined;
  let lag: ConsumerLagSampler | undefined;
  let influxWriter: InfluxPointWriter | undefined;

  const start = async () => {
    const nc = services.stores.nats.connection;
    const redis = services.stores.redis.client;
    const jsm = await nc.jetstreamManager();
    await ensureEventStreams(jsm, settings.streams, services.logger);
    const keys = writerKeys(settings.redisPrefix, settings.streamPrefix);
    const { config } = services;
    influxWriter = new InfluxPointWriter(
      {
        url: config.INFLUX_URL,
        database: config.INFLUX_DB,
        username: config.INFLUX_USERNAME,
        password: config.INFLUX_PASSWORD,
      },
      settings.influxConcurrency,
    );
    const deadLetters = new DeadLetters(nc.jetstream(), jsm, settings.streams);
    const replicas = new ReplicaSync(nodesOfClient(redis), redisKeys(settings.redisPrefix), settings.redisReplicas);
    const stores: BatchStores = {
      influx: influxWriter,
      logs: new LogSegmentAppender(redis, settings.redisPrefix, settings.logRetention),
      summaries: new SummaryApplier(redis, settings.redisPrefix),
      replicas,
      deadLetters,
      nc,
      noConsumerAfterMs: settings.noConsumerAfterMs,
      metrics,
      logger,
    };
    const control = new ControlRunner(
      new ControlExecutor(services.stores.influx, redis, nc, settings.redisPrefix),
      deadLetters,
      nc,
      settings.noConsumerAfterMs,
      metrics,
      logger,
    );
    const leases = new PartitionLeases(redis, keys, writerId, settings.leaseTtlMs, replicas);
    const owner: PartitionOwnership = new PartitionOwnership(
      leases,
      {
        take: (partition) => {
          const worker = new PartitionWorker(partition, {
            nc,
            jsm,
            settings,
            stores,
            control,
            logger,
            stillOwned: () => owner.holds(partition),
            onFailure: () => {
              // A worker dropped earlier must not give up the partition's next tenure.
              if (workers.get(partition) !== worker) return;
              workers.delete(partition);
              void owner.abandon(partition);
            },
          });
          workers.set(partition, worker);
          worker.start();
        },
        drop: (partition) => {
          workers.get(partition)?.drop();
          workers.delete(partition);
        },
        handBack: async (partition) => {
          await workers.get(partition)?.handBack();
          workers.delete(partition);
        },
      },
      {
        partitions: settings.partitions,
        leaseTtlMs: settings.leaseTtlMs,
        onOwnedChange: (count) => metrics.partitionsOwned.set(count),
      },
      logger,
    );
    ownership = owner;
    await owner.start();
    lag = new ConsumerLagSampler(jsm, settings.streamPrefix, metrics, () => [...workers.keys()], settings.lagSampleMs);
    lag.start();
    logger.info({ partitions: settings.partitions, owned: owner.ownedCount() }, 'writer started');
  };

  const stop = async () => {
    lag?.stop();
    await ownership?.stop();
    ownership = undefined;
    influxWriter?.close();
  };

  return {
    component: { name: 'events-writer', phase: 'worker', start, stop },
    readiness: {
      name: 'writer',
      check: async () => {
        if (!ownership) throw new Error('writer not running');
        ownership.healthy();
      },
    },
  };
}
