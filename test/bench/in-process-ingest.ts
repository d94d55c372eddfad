/**
 * The ingest service in process, without stores, as the path benchmarks run
 * it: entity checks answer at once, and publishing hands each message's
 * payload to `published` and acknowledges it. Settings as the service's
 * defaults for bench:ingest's load (8 partitions, 1 MiB messages).
 */
import { BufferPool } from '../../ingest/events/buffer-pool.js';
import type { IngestResult } from '../../ingest/events/ingest-port.js';
import { EventIngestService } from '../../ingest/events/ingest-session.js';
import { RequestFingerprint } from '../../ingest/events/request-fingerprint.js';
import { readEventChunk } from '../../ingest/grpc/event-chunk-reader.js';
import { HeldMemory } from '../../ingest/publish/held-memory.js';
import { InflightBudget } from '../../ingest/publish/inflight-budget.js';
import type { CallContext } from '../../shared/protocol/operation.js';

export const BENCH_IDENTITY = { company: 'bench-company', user: 'bench-user' } as CallContext['identity'];

export function inProcessIngest(published: (payload: Uint8Array) => void): EventIngestService {
  return new EventIngestService({
    registry: { checkAndRegister: async (_c, _u, _n, entities) => entities.map(() => 'ok' as const) },
    publisher: {
      async publishAll(messages) {
        for (const message of messages) {
          published(await message.payload());
          message.acknowledged?.();
        }
      },
    } as ConstructorParameters<typeof EventIngestService>[0]['publisher'],
    budget: new InflightBudget(512 * 1024 * 1024),
    memory: new HeldMemory(32 * 1024 * 1024),
    buffers: new BufferPool(16 * 1024 * 1024),
    settings: {
      partitions: 8,
      targetMessageBytes: 1024 * 1024,
      maxMessageBytes: 1024 * 1024,
      plotValidation: true,
      plotCompressionThreshold: 16 * 1024,
      maxEntitiesPerRequest: 1000,
    },
  });
}

/** One StreamEvents chunk through the session, as the gRPC handler takes it (`scope`: its chunk id). */
export function ingestChunk(ingest: EventIngestService, bytes: Buffer, scope: string): Promise<IngestResult> {
  const fingerprint = RequestFingerprint.of('grpc.chunk', undefined, scope);
  fingerprint.update(bytes);
  const session = ingest.begin({ identity: BENCH_IDENTITY, fingerprint });
  readEventChunk(bytes).addTo(session);
  return session.commit();
}
