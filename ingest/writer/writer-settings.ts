/**
 * Tuning of the writer that is not configuration: derived from the config
 * where it must agree with other processes, constants where only the
 * writer's own behaviour depends on it.
 */
import type { Config } from '../../shared/config/config.js';
import { eventStreamSettings, type EventStreamSettings } from '../../shared/events/event-streams.js';
import { noConsumerAfterMs } from './jetstream-delivery.js';
import type { LogRetention } from './log-segment-appender.js';
import type { WaitReplicas } from './replica-sync.js';

export interface WriterSettings {
  readonly streamPrefix: string;
  /** The event streams' configuration (created or corrected at start). */
  readonly streams: EventStreamSettings;
  /** Log lines a task keeps (LOG_RETENTION_*; 0: no limit). */
  readonly logRetention: LogRetention;
  readonly partitions: number;
  readonly redisPrefix: string;
  /** REDIS_WAIT_REPLICAS, and the WAIT timeout (kept below the command deadline, which would cut it off). */
  readonly redisReplicas: { replicas: WaitReplicas; timeoutMs: number };
  /** I and L records per store write. */
  readonly batchEvents: number;
  readonly flushMs: number;
  /** Line-protocol bytes per InfluxDB POST: plots make points large, and influxd buffers a body whole. */
  readonly maxBatchBytes: number;
  /** Partition lease lifetime; renewed every third of it. A crashed writer's partitions move after at most this long. */
  readonly leaseTtlMs: number;
  readonly ackWaitMs: number;
  /** How long NATS answers "no responders" before a partition's consumer counts as gone (jetstream-delivery.ts). */
  readonly noConsumerAfterMs: number;
  /** Messages delivered and not yet acknowledged, per partition (high: small messages must still fill a batch). */
  readonly maxAckPending: number;
  /** Payload bytes a partition holds (queued and in its batch): what bounds the writer's memory. */
  readonly maxHeldBytes: number;
  /** Bytes one pull request may bring (all partitions together stay well below NATS' per-client max_pending). */
  readonly pullMaxBytes: number;
  /** Server-side expiry of one pull request; an idle partition re-asks this often. */
  readonly pullExpiresMs: number;
  /** InfluxDB's CPU is the pipeline's bottleneck: more writes in flight only queue inside influxd. */
  readonly influxConcurrency: number;
  readonly maxRetryDelayMs: number;
  readonly lagSampleMs: number;
  /** Time a stopping writer gives its held batches before it hands them back unstored. */
  readonly stopDeadlineMs: number;
}

export function writerSettings(config: Readonly<Config>): WriterSettings {
  return {
    streamPrefix: config.NATS_STREAM_PREFIX,
    streams: eventStreamSettings(config),
    logRetention: { maxLines: config.LOG_RETENTION_MAX_LINES, maxAgeMs: config.LOG_RETENTION_MAX_AGE_MS },
    partitions: config.NATS_PARTITIONS,
    redisPrefix: config.REDIS_KEY_PREFIX,
    redisReplicas: {
      replicas: config.REDIS_WAIT_REPLICAS,
      timeoutMs: Math.min(config.REDIS_WAIT_TIMEOUT_MS, Math.floor(config.REDIS_COMMAND_TIMEOUT_MS / 2)),
    },
    batchEvents: config.WRITER_BATCH_EVENTS,
    flushMs: config.WRITER_FLUSH_MS,
    maxBatchBytes: 16 * 1024 * 1024,
    leaseTtlMs: config.WRITER_LEASE_TTL_MS,
    ackWaitMs: 30_000,
    noConsumerAfterMs: noConsumerAfterMs(config.NATS_STREAM_REPLICAS),
    maxAckPending: 4_096,
    maxHeldBytes: 16 * 1024 * 1024,
    pullMaxBytes: 4 * 1024 * 1024,
    pullExpiresMs: 2_000,
    influxConcurrency: 2,
    maxRetryDelayMs: 5_000,
    lagSampleMs: 5_000,
    stopDeadlineMs: Math.max(1_000, config.SHUTDOWN_PHASE_TIMEOUT_MS - 3_000),
  };
}
