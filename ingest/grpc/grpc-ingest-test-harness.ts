/**
 * Test support for the gRPC transport tests: a real server on a free port
 * over an IngestService double, and a grpc-js client built from the same
 * service definition that clients use.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { credentials, makeClientConstructor, Metadata, type ServiceError } from '@grpc/grpc-js';
import type { Identity } from '../../shared/auth/identity.js';
import { apiError } from '../../shared/errors/error-catalogue.js';
import type { IngestRequestContext, IngestResult, IngestService, IngestSession } from '../events/ingest-port.js';
import { eventsIngestDefinition } from './events-ingest-definition.js';
import type { EventSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { createGrpcIngestServer, type GrpcIngestServer, type GrpcIngestServerOptions } from './grpc-ingest-server.js';

export type EventInit = MessageInitShape<typeof EventSchema>;

export interface RecordedSession {
  context: IngestRequestContext;
  events: Record<string, unknown>[];
  committed: boolean;
  discarded: boolean;
}

/** Transport-only double: records the raw events the server feeds it and answers counts. */
export class RecordingIngest implements IngestService {
  readonly sessions: RecordedSession[] = [];
  onCommit: (session: RecordedSession) => Promise<IngestResult> = async (s) => ({
    added: s.events.length,
    errors: 0,
    errors_info: {},
  });

  begin(context: IngestRequestContext): IngestSession {
    const record: RecordedSession = { context, events: [], committed: false, discarded: false };
    this.sessions.push(record);
    return {
      add: (raw) => void record.events.push(raw),
      get count() {
        return record.events.length;
      },
      commit: () => {
        record.committed = true;
        return this.onCommit(record);
      },
      discard: () => void (record.discarded = true),
    };
  }
}

export const IDENTITY: Identity = { user: 'u1', company: 'c1', role: 'user' };
export const EventsIngestClient = makeClientConstructor(eventsIngestDefinition, 'clearml.events.v1.EventsIngest');
export type EventsIngestClientInstance = InstanceType<typeof EventsIngestClient>;

export function meta(entries: Record<string, string> = { authorization: 'Bearer good' }): Metadata {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return metadata;
}

export const scalar = (task: string, iter = 1): EventInit => ({
  type: 'training_stats_scalar',
  task,
  iter: BigInt(iter),
  metric: 'm',
  variant: 'v',
  value: 1,
});

export async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`${what} not reached within 2 s`);
}

export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const err = await promise.then(
    () => undefined,
    (e: ServiceError) => e,
  );
  if (err === undefined) throw new Error('the call succeeded');
  return err;
}

export function clearmlCodes(err: ServiceError): [unknown, unknown] {
  return [err.metadata.get('clearml-result-code')[0], err.metadata.get('clearml-result-subcode')[0]];
}

export interface TestServer {
  readonly ingest: RecordingIngest;
  readonly client: EventsIngestClientInstance;
  readonly port: number;
  readonly logged: { level: string; obj: object }[];
  /** Stops client and server; idempotent. */
  stop(graceMs?: number): Promise<void>;
}

/** Accepts `Bearer good` only. */
export async function startTestServer(
  options: Pick<GrpcIngestServerOptions, 'maxMessageBytes' | 'ready' | 'healthIntervalMs' | 'admission'> = {},
): Promise<TestServer> {
  const ingest = new RecordingIngest();
  const logged: { level: string; obj: object }[] = [];
  const log = (level: string) => (obj: object) => void logged.push({ level, obj });
  const server: GrpcIngestServer = createGrpcIngestServer({
    host: '127.0.0.1',
    port: 0,
    ingest,
    ...options,
    logger: { info: log('info'), warn: log('warn'), error: log('error') },
    authenticate: (header) => {
      if (header === undefined) throw apiError('missing_credentials');
      if (header !== 'Bearer good') throw apiError('invalid_token');
      return IDENTITY;
    },
  });
  const port = await server.start();
  let stopping: Promise<void> | undefined;
  const client = new EventsIngestClient(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    ingest,
    client,
    port,
    logged,
    stop: async (graceMs = 1000) => {
      client.close();
      stopping ??= server.stop(graceMs);
      await stopping;
    },
  };
}
