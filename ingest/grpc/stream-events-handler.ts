/**
 * EventsIngest.StreamEvents: every EventChunk is one add_batch request,
 * persisted and acknowledged strictly in the order received.
 */
import { once } from 'node:events';
import { create } from '@bufbuild/protobuf';
import type { handleBidiStreamingCall, ServerDuplexStream } from '@grpc/grpc-js';
import type { IngestRequestContext } from '../../shared/events/ingest-port.js';
import { decodeRequest } from './events-ingest-definition.js';
import { ChunkAckSchema, EventChunkSchema, type ChunkAck, type EventChunk } from './gen/clearml/events/v1/events_ingest_pb.js';
import { ingestContextFor, watchCancellation, type CallCancellation, type GrpcIngestDeps } from './grpc-call-context.js';
import { answerableError, endsStream, grpcStatusOf } from './grpc-error-status.js';
import { ingestProtoEvents } from './proto-event-session.js';

type ChunkStream = ServerDuplexStream<Buffer, ChunkAck>;

const METHOD = 'StreamEvents';

/**
 * Commits one chunk. One chunk at a time, never overlapping: a chunk's
 * events must be persisted after the previous chunk's, because persistence
 * order decides which re-reported event wins (events.md §1.5, §2).
 */
async function acknowledge(deps: GrpcIngestDeps, context: IngestRequestContext, chunk: EventChunk): Promise<ChunkAck> {
  try {
    const result = await ingestProtoEvents(deps.ingest, context, chunk.events);
    return create(ChunkAckSchema, {
      chunkId: chunk.chunkId,
      added: result.added,
      errors: result.errors,
      errorsInfo: result.errors_info,
    });
  } catch (err) {
    if (endsStream(err) || context.signal?.aborted) throw err;
    const refusal = answerableError(err, deps.logger, { method: METHOD, chunkId: String(chunk.chunkId) });
    const { code, subcode } = refusal.entry;
    return create(ChunkAckSchema, { chunkId: chunk.chunkId, error: { code, subcode, message: refusal.message } });
  }
}

/** Waits for the client to take acks it has fallen behind on, so they cannot pile up here. */
async function send(call: ChunkStream, ack: ChunkAck, signal: AbortSignal): Promise<void> {
  if (!call.write(ack)) await once(call, 'drain', { signal });
}

async function serve(deps: GrpcIngestDeps, call: ChunkStream, cancellation: CallCancellation): Promise<void> {
  const { signal } = cancellation;
  const context = ingestContextFor(deps, call.metadata, signal);
  // Pulling one message at a time gives backpressure: while a chunk commits,
  // grpc-js reads ahead at most a Readable buffer's worth (16 messages) and
  // HTTP/2 flow control holds the rest at the client. The readable side must
  // survive an early exit so that the error status can still be written;
  // grpc-js destroys it on cancel, which ends the loop with an error.
  for await (const bytes of call.iterator({ destroyOnReturn: false })) {
    const chunk = decodeRequest(EventChunkSchema, bytes as Buffer);
    const ack = await acknowledge(deps, context, chunk);
    if (signal.aborted) return;
    await send(call, ack, signal);
  }
  if (signal.aborted) return;
  cancellation.settle();
  call.end();
}

export function streamEventsHandler(deps: GrpcIngestDeps): handleBidiStreamingCall<Buffer, ChunkAck> {
  return (call) => {
    const cancellation = watchCancellation(call);
    serve(deps, call, cancellation).catch((err: unknown) => {
      if (cancellation.signal.aborted) return;
      cancellation.settle();
      // grpc-js ends a streaming call with this status after the acks already written.
      call.emit('error', grpcStatusOf(answerableError(err, deps.logger, { method: METHOD })));
    });
  };
}
