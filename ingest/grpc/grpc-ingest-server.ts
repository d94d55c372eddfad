/**
 * The gRPC front of the ingest target: serves clearml.events.v1.EventsIngest
 * (proto/clearml/events/v1/events_ingest.proto) over the same IngestService
 * as the HTTP operations, with the standard health service and server
 * reflection beside it. Decisions: docs/grpc.md.
 */
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { ConnectionCap } from '../../shared/http/connection-cap.js';
import type { Identity } from '../../shared/auth/identity.js';
import type { IngestService } from '../events/ingest-port.js';
import { addBatchHandler, addHandler } from './add-handlers.js';
import type { IngestMetrics } from '../events/ingest-metrics.js';
import { firstMetadataValue, type GrpcIngestDeps, type GrpcIngestLogger } from './grpc-call-context.js';
import type { GrpcMetrics } from './grpc-metrics.js';
import { eventsIngestServerDefinition, EVENTS_INGEST_SERVICE } from './events-ingest-definition.js';
import { GrpcHealth } from './grpc-health.js';
import { callAdmissionInterceptor, type CallAdmissionOptions } from './call-admission-interceptor.js';
import { reflectionService } from './grpc-reflection.js';
import { streamEventsHandler } from './stream-events-handler.js';

export interface GrpcIngestServerOptions {
  host: string;
  /** 0 picks a free port; start() returns the bound one. */
  port: number;
  ingest: IngestService;
  /** Reads metadata `authorization` ("Bearer <token>" or Basic); throws an ApiError (401). */
  authenticate(authorizationHeader: string | undefined): Identity;
  logger: GrpcIngestLogger;
  /** Largest message (one Event, EventBatch or EventChunk) received; default 64 MiB like the HTTP body limit. */
  maxMessageBytes?: number;
  /**
   * The process's bounds on what calls hold (open calls, message bytes shared with HTTP, time to send a
   * message: call-admission-interceptor.ts); unbounded without them.
   */
  admission?: Pick<CallAdmissionOptions, 'budget' | 'openCalls' | 'messageMs' | 'openMessageMs'>;
  /** The connections the listener holds at once (MAX_CONNECTIONS); unbounded without it. */
  connectionCap?: ConnectionCap;
  /** A connection without calls for this long is closed (GOAWAY; clients reconnect when they next call). */
  idleConnectionMs?: number;
  metrics?: GrpcMetrics;
  ingestMetrics?: IngestMetrics;
  /** The process's readiness, which the health service reports; default: always ready. */
  ready?: () => Promise<boolean>;
  /** Time between two readiness reads of the health service; default 5 s. */
  healthIntervalMs?: number;
}

export interface GrpcIngestServer {
  /** Binds and serves; resolves with the bound port. */
  start(): Promise<number>;
  /** Lets calls in flight finish for up to `graceMs`, then cancels the rest. */
  stop(graceMs?: number): Promise<void>;
}

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** Largest message of the health and reflection services, and of callers whose credentials are refused. */
export const OPEN_MESSAGE_BYTES = 64 * 1024;
const DEFAULT_STOP_GRACE_MS = 10_000;
const DEFAULT_HEALTH_INTERVAL_MS = 5_000;

/**
 * Server-initiated HTTP/2 pings on idle connections: a training node that
 * vanished without closing its TCP connection would otherwise keep its
 * stream, and the chunks buffered for it, until the OS gives up (hours).
 */
const KEEPALIVE_OPTIONS = {
  'grpc.keepalive_time_ms': 120_000,
  'grpc.keepalive_timeout_ms': 20_000,
};

export function createGrpcIngestServer(options: GrpcIngestServerOptions): GrpcIngestServer {
  const { logger } = options;
  const deps: GrpcIngestDeps = {
    ingest: options.ingest,
    authenticate: options.authenticate,
    logger,
    metrics: options.metrics,
    ingestMetrics: options.ingestMetrics,
  };
  // The size limit stays in grpc-js: it checks the length prefix before
  // buffering a message, which no handler could do (docs/grpc.md).
  const { admission } = options;
  const server = new Server({
    'grpc.max_receive_message_length': options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    ...KEEPALIVE_OPTIONS,
    ...(options.idleConnectionMs === undefined ? {} : { 'grpc.max_connection_idle_ms': options.idleConnectionMs }),
    interceptors: admission
      ? [
          callAdmissionInterceptor({
            ...admission,
            companyOf: (metadata) => options.authenticate(firstMetadataValue(metadata, 'authorization')).company,
            authenticates: (path) => path.startsWith(`/${EVENTS_INGEST_SERVICE}/`),
            openMessageBytes: OPEN_MESSAGE_BYTES,
          }),
        ]
      : [],
  });
  server.addService(eventsIngestServerDefinition, {
    Add: addHandler(deps),
    AddBatch: addBatchHandler(deps),
    StreamEvents: streamEventsHandler(deps),
  });
  const health = new GrpcHealth({
    services: [EVENTS_INGEST_SERVICE],
    ready: options.ready ?? (async () => true),
    intervalMs: options.healthIntervalMs ?? DEFAULT_HEALTH_INTERVAL_MS,
    logger,
  });
  health.addToServer(server);
  reflectionService().addToServer(server);

  // The listener is ours, so that it can bound its connections (grpc-js's bindAsync gives no hold on its own);
  // grpc-js serves each connection it is handed as it would one it accepted.
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const listener = createNetServer((socket) => injector.injectConnection(socket));
  options.connectionCap?.apply(listener, 'grpc');

  return {
    start: async () => {
      await health.start();
      return new Promise<number>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen({ host: options.host, port: options.port }, () => {
          listener.off('error', reject);
          resolve((listener.address() as AddressInfo).port);
        });
      });
    },
    stop: (graceMs = DEFAULT_STOP_GRACE_MS) => {
      // Probes see the server go before it does; Watch calls end instead of holding the shutdown.
      health.stop();
      listener.close();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          logger.warn({ graceMs }, 'gRPC ingest calls still running after the grace period: cancelling them');
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
