/**
 * Composition root of the ingest target: events.add and events.add_batch
 * over HTTP and gRPC, one validation path (EventIngestService), published
 * to NATS JetStream.
 */
import type { JetStreamManager } from 'nats';
import { companionFacts } from '../shared/companion/companion-mode.js';
import { localReportsOf } from '../shared/companion/local-reports.js';
import { EntityRegistry } from '../shared/entities/entity-registry.js';
import { exportEventStreamMetrics } from './event-stream-metrics.js';
import { CompanionRegistry, type EntityChecks } from './events/companion-registry.js';
import { eventStreamSettings, EventStreamKeeper } from '../shared/events/event-streams.js';
import type { Component } from '../shared/launcher/component.js';
import type { TargetModule } from '../shared/launcher/target.js';
import { createIngestMetrics } from './events/ingest-metrics.js';
import { EventIngestService } from './events/ingest-session.js';
import { createGrpcIngestServer, type GrpcIngestServer } from './grpc/grpc-ingest-server.js';
import { OpenCallLimit } from './grpc/open-call-limit.js';
import { createGrpcMetrics } from './grpc/grpc-metrics.js';
import { addBatchOperation } from './http/add-batch-operation.js';
import { addOperation } from './http/add-operation.js';
import { EventPublisher } from './publish/event-publisher.js';
import { BufferPool } from './events/buffer-pool.js';
import { DeadBufferCollector, fullCollection } from './publish/dead-buffer-collector.js';
import { HeldMemory } from './publish/held-memory.js';
import { InflightBudget } from './publish/inflight-budget.js';
import { PublishWindow } from './publish/publish-window.js';
import { WriterLagGate } from './publish/writer-lag-gate.js';
import { WriterLagSampler } from './publish/writer-lag-sampler.js';
import { streamName } from '../shared/events/wire-format.js';
import { Counter, Gauge } from '../shared/observability/metrics.js';

const TARGET_MESSAGE_BYTES = 1024 * 1024;
const HEADERS_ROOM = 16 * 1024;
/** Message buffers kept for the next requests: what a few requests in flight use (more is left to the garbage collector). */
const BUFFER_POOL_BYTES = 16 * 1024 * 1024;
/** Bytes out to JetStream awaiting PubAcks, all requests together: a few full messages per partition keep the connection busy. */
const PUBLISH_WINDOW_BYTES = 8 * 1024 * 1024;

export const ingestTarget: TargetModule = (services) => {
  const { config, stores, logger } = services;
  stores.need('nats', 'redis');
  const settings = {
    partitions: config.NATS_PARTITIONS,
    targetMessageBytes: TARGET_MESSAGE_BYTES,
    maxMessageBytes: TARGET_MESSAGE_BYTES,
    plotValidation: config.PLOT_VALIDATION,
    plotCompressionThreshold: config.PLOT_COMPRESSION_THRESHOLD,
    maxEntitiesPerRequest: config.INGEST_MAX_ENTITIES_PER_REQUEST,
    spillDir: config.INGEST_SPILL_DIR,
  };
  const jsm = () => stores.nats.jetstreamManager();
  // Ingest is not ready while the events stream is missing or full; a missing one is created again.
  const eventStreams = new EventStreamKeeper({
    settings: eventStreamSettings(config),
    jsm,
    logger,
    publishRoomBytes: () => settings.maxMessageBytes,
  });
  exportEventStreamMetrics(services.metrics, eventStreamSettings(config), jsm);
  const budget = new InflightBudget(config.INGEST_MAX_INFLIGHT_BYTES);
  const { gate: lagGate, sampler: lagSampler } = writerLag(services, jsm, eventStreams);
  const memory = new HeldMemory(config.INGEST_MAX_MEMORY_BYTES);
  const window = new PublishWindow(PUBLISH_WINDOW_BYTES);
  const buffers = new BufferPool(BUFFER_POOL_BYTES);
  const metrics = createIngestMetrics(services.metrics, budget, memory);
  const grpcMetrics = createGrpcMetrics(services.metrics);
  const openCalls = new OpenCallLimit(config.GRPC_MAX_OPEN_CALLS, services.metrics);
  let registry: EntityChecks | undefined;
  const facts = companionFacts(config);
  let publisher: EventPublisher | undefined;
  // Built lazily: the store clients exist only once the store components started.
  const ingest = new EventIngestService({
    get registry() {
      if (registry === undefined) {
        const local = new EntityRegistry(stores.redis.client, config.REDIS_KEY_PREFIX);
        registry = facts
          ? new CompanionRegistry(
              local,
              facts,
              localReportsOf(() => stores.redis.client, config.REDIS_KEY_PREFIX),
            )
          : local;
      }
      return registry;
    },
    get publisher() {
      return (publisher ??= new EventPublisher(
        () => ({ connected: stores.nats.connected, jetstream: () => stores.nats.connection.jetstream() }),
        {
          prefix: config.NATS_STREAM_PREFIX,
          timeoutMs: config.INGEST_PUBLISH_TIMEOUT_MS,
          onFailure: () => eventStreams.suspect(),
          room: eventStreams,
          observer: metrics,
          window,
        },
      ));
    },
    budget,
    lagGate,
    memory,
    buffers,
    settings,
    metrics,
  });

  const streams: Component = {
    name: 'event-streams',
    phase: 'worker',
    start: async () => {
      const nc = stores.nats.connection;
      await eventStreams.ensure();
      // One big event may use the whole payload the server allows.
      settings.maxMessageBytes = Math.max(TARGET_MESSAGE_BYTES, nc.info!.max_payload - HEADERS_ROOM);
    },
    stop: async () => undefined,
  };

  let grpc: GrpcIngestServer | undefined;
  const grpcFront: Component = {
    name: 'grpc',
    phase: 'front',
    start: async () => {
      grpc = createGrpcIngestServer({
        host: config.API_HOST,
        port: config.GRPC_PORT,
        ingest,
        authenticate: (header) => services.authenticator.authenticate(header),
        logger,
        maxMessageBytes: config.MAX_BODY_BYTES,
        admission: {
          budget: services.bodyBudget,
          openCalls,
          messageMs: config.HTTP_REQUEST_TIMEOUT_MS,
          openMessageMs: config.HTTP_HEADERS_TIMEOUT_MS,
        },
        idleConnectionMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
        connectionCap: services.connectionCap,
        metrics: grpcMetrics,
        ingestMetrics: metrics,
        ready: async () => (await services.readiness()).ready,
        healthIntervalMs: config.GRPC_HEALTH_INTERVAL_MS,
      });
      const port = await grpc.start();
      services.boundPorts.set('grpc', port);
      logger.info({ port }, 'gRPC ingest listening');
    },
    stop: async () => grpc?.stop(config.SHUTDOWN_PHASE_TIMEOUT_MS),
  };

  return {
    operations: [
      addOperation({ ingest, metrics }),
      addBatchOperation({ ingest, maxLineBytes: config.MAX_LINE_BYTES, metrics }),
    ],
    components: [
      streams,
      lagSampler,
      grpcFront,
      ...deadBufferCollection(config.INGEST_GC_EXTERNAL_GROWTH_BYTES, budget, services),
    ],
    readiness: [{ name: 'ingest-stream', check: () => eventStreams.check() }],
  };
};

/**
 * The writers' lag as this process reads it from the events stream, and the
 * gate that refuses the heaviest senders beyond INGEST_MAX_WRITER_LAG_MS.
 */
function writerLag(
  { config, logger, metrics }: Pick<Parameters<TargetModule>[0], 'config' | 'logger' | 'metrics'>,
  jsm: () => Promise<JetStreamManager>,
  eventStreams: EventStreamKeeper,
): { gate: WriterLagGate; sampler: Component } {
  // One read of the stream twice a second serves the lag and the fill checked against NATS_STREAM_MAX_BYTES.
  const sampler = new WriterLagSampler({
    jsm,
    stream: streamName(config.NATS_STREAM_PREFIX),
    logger,
    onReading: (info) => {
      gate.sweep();
      if (info) eventStreams.observe(info);
    },
  });
  const gate = new WriterLagGate({
    maxLagMs: config.INGEST_MAX_WRITER_LAG_MS,
    lagMs: () => sampler.lagMs,
    stalled: () => sampler.stalled,
  });
  const registers = [metrics];
  new Gauge({
    name: 'clearml_ingest_writer_lag_seconds',
    help: 'How far behind the writers are, as this ingest process reads the events stream twice a second: the smaller of the age of the oldest event not yet stored and the time the writers would take to store the backlog at their recent rate',
    registers,
    collect() {
      this.set(sampler.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'clearml_ingest_writer_lag_limit_seconds',
    help: 'INGEST_MAX_WRITER_LAG_MS: beyond it the companies sending the most are answered 429 writers_behind (0: never)',
    registers,
  }).set(config.INGEST_MAX_WRITER_LAG_MS / 1000);
  new Counter({
    name: 'clearml_ingest_writers_behind_refusals_total',
    help: 'Requests and gRPC chunks refused with 429 writers_behind',
    registers,
    collect() {
      this.reset();
      this.inc(gate.refusals);
    },
  });
  return {
    gate,
    sampler: {
      name: 'writer-lag',
      phase: 'worker',
      start: async () => sampler.start(),
      stop: () => sampler.stop(),
    },
  };
}

/** How often memory is read: a fraction of a second of large bodies at most between readings. */
const MEMORY_READ_MS = 250;

function deadBufferCollection(
  growthBytes: number,
  budget: InflightBudget,
  { metrics, logger }: Pick<Parameters<TargetModule>[0], 'metrics' | 'logger'>,
): Component[] {
  if (growthBytes === 0) return [];
  const collect = fullCollection();
  if (!collect) {
    logger.warn(
      'this Node refuses full collections on request: dead buffers wait for V8 (INGEST_GC_EXTERNAL_GROWTH_BYTES)',
    );
    return [];
  }
  const counted = new Counter({
    name: 'clearml_ingest_buffer_collections_total',
    help: 'Full garbage collections asked for by the ingest process: its buffer memory grew by INGEST_GC_EXTERNAL_GROWTH_BYTES while it held requests',
    registers: [metrics],
  });
  const seconds = new Counter({
    name: 'clearml_ingest_buffer_collection_seconds_total',
    help: 'Time spent in those collections (the event loop waits meanwhile)',
    registers: [metrics],
  });
  const collector = new DeadBufferCollector({
    growthBytes,
    intervalMs: MEMORY_READ_MS,
    busy: () => budget.inUse > 0,
    collect,
    onCollect: ({ before, after, ms }) => {
      counted.inc();
      seconds.inc(ms / 1000);
      logger.debug(
        { before, after, ms: Math.round(ms) },
        'full garbage collection for memory the process no longer uses',
      );
    },
  });
  return [
    {
      name: 'dead-buffer-collector',
      phase: 'worker',
      start: async () => collector.start(),
      stop: async () => collector.stop(),
    },
  ];
}
