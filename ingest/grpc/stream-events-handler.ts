/**
 * EventsIngest.StreamEvents: every EventChunk is one add_batch request,
 * persisted and acknowledged strictly in the order received; the next
 * chunk is checked while the previous one is persisted.
 */
import { once } from 'node:events';
import { create } from '@bufbuild/protobuf';
import { status, type handleBidiStreamingCall, type ServerDuplexStream } from '@grpc/grpc-js';
import type { IngestRequestContext, IngestSession } from '../events/ingest-port.js';
import { readEventChunk, type ChunkEvents } from './event-chunk-reader.js';
import { ChunkAckSchema, type ChunkAck } from './gen/clearml/events/v1/events_ingest_pb.js';
import { IDEMPOTENCY_KEY_HEADER, RequestFingerprint } from '../events/request-fingerprint.js';
import {
  firstMetadataValue,
  ingestContextFor,
  secondsSince,
  watchCancellation,
  type CallCancellation,
  type GrpcIngestDeps,
} from './grpc-call-context.js';
import { answerableError, endsStream, grpcStatusOf } from './grpc-error-status.js';
import type { GrpcMethod } from './grpc-metrics.js';
import { readOneAhead } from './read-ahead.js';

type ChunkStream = ServerDuplexStream<Buffer, ChunkAck>;

const METHOD: GrpcMethod = 'StreamEvents';

/** A chunk checked and encoded (or refused while being so), waiting for its turn to commit. */
type PreparedChunk = { chunkId: bigint; session: IngestSession } | { chunkId: bigint; error: unknown };

/**
 * A chunk's fingerprint: with the stream's `idempotency-key` metadata, the
 * key and the chunk id (a client re-sending unacknowledged chunks on a new
 * stream keeps both); without, the chunk's bytes.
 */
function chunkFingerprint(streamKey: string | undefined, chunk: ChunkEvents, bytes: Buffer): RequestFingerprint {
  const fingerprint = RequestFingerprint.of('grpc.chunk', streamKey, String(chunk.chunkId));
  fingerprint.update(bytes);
  return fingerprint;
}

/** Decodes and checks a chunk's events: CPU work that may run while the previous chunk commits. */
function prepare(
  deps: GrpcIngestDeps,
  context: IngestRequestContext,
  chunk: ChunkEvents,
  fingerprint: RequestFingerprint,
): PreparedChunk {
  const session = deps.ingest.begin({ ...context, fingerprint });
  try {
    chunk.addTo(session);
    return { chunkId: chunk.chunkId, session };
  } catch (error) {
    session.discard(error);
    return { chunkId: chunk.chunkId, error };
  }
}

/**
 * Commits one prepared chunk. Commits never overlap: a chunk's events must
 * be persisted after the previous chunk's, because persistence order
 * decides which re-reported event wins (events.md §1.5, §2).
 */
async function commit(deps: GrpcIngestDeps, context: IngestRequestContext, prepared: PreparedChunk): Promise<ChunkAck> {
  try {
    if ('error' in prepared) throw prepared.error;
    const result = await prepared.session.commit();
    deps.metrics?.chunkAcked(status.OK);
    return create(ChunkAckSchema, {
      chunkId: prepared.chunkId,
      added: result.added,
      errors: result.errors,
      errorsInfo: result.errors_info,
    });
  } catch (err) {
    if (endsStream(err) || context.signal?.aborted) throw err;
    const refusal = answerableError(err, deps.logger, { method: METHOD, chunkId: String(prepared.chunkId) });
    const { code, subcode } = refusal.entry;
    deps.metrics?.chunkAcked(refusal.entry.grpc);
    return create(ChunkAckSchema, { chunkId: prepared.chunkId, error: { code, subcode, message: refusal.message } });
  }
}

/** Waits for the client to take acks it has fallen behind on, so they cannot pile up here. */
async function send(call: ChunkStream, ack: ChunkAck, signal: AbortSignal): Promise<void> {
  if (!call.write(ack)) await once(call, 'drain', { signal });
}

/**
 * Rejects when `chain` does and never settles otherwise: racing against it
 * leaves only the other outcome while the chain runs. A fresh pending promise
 * each time, not one shared for good: every promise that follows a pending one
 * is kept in its reactions until it settles, so a shared one kept every
 * chunk's bytes (~80 MB after a million events) for the life of the process.
 */
const failureOf = (chain: Promise<void>) => chain.then(() => new Promise<never>(() => undefined));

async function serve(deps: GrpcIngestDeps, call: ChunkStream, cancellation: CallCancellation): Promise<void> {
  const { signal } = cancellation;
  const context = ingestContextFor(deps, call.metadata, signal);
  const streamKey = firstMetadataValue(call.metadata, IDEMPOTENCY_KEY_HEADER);
  // A malformed key ends the call before any chunk (400/12).
  RequestFingerprint.of('grpc.chunk', streamKey);
  // Pulling one message at a time gives backpressure: while a chunk commits
  // and the next is checked, one more waits here and HTTP/2 flow control holds
  // the rest at the client. The readable side must survive an early exit so
  // that the error status can still be written; grpc-js destroys it on cancel,
  // which ends the loop with an error.
  readOneAhead(call, deps.logger);
  const messages = call.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
  // Commits run one after another on this chain, each sending its ack as soon as it is done (a client
  // may wait for an ack before sending more). The next chunk is checked while the chain runs: the CPU
  // part of ingest would otherwise idle through every commit's PubAcks.
  let chain: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      // A stream-ending failure of a commit ends the call at once, not at the client's next message.
      const next = await Promise.race([messages.next(), failureOf(chain)]);
      if (next.done) break;
      const bytes = next.value as Buffer;
      deps.ingestMetrics?.received('grpc', bytes.length);
      const chunk = readEventChunk(bytes);
      const prepared = prepare(deps, context, chunk, chunkFingerprint(streamKey, chunk, bytes));
      try {
        await chain;
      } catch (err) {
        if ('session' in prepared) prepared.session.discard(err);
        throw err;
      }
      if (signal.aborted) {
        if ('session' in prepared) prepared.session.discard();
        return;
      }
      chain = commit(deps, context, prepared).then((ack) => (signal.aborted ? undefined : send(call, ack, signal)));
      // Observed by the race above or the wait below; marked handled meanwhile.
      chain.catch(() => undefined);
    }
    await chain;
  } finally {
    // An early exit (malformed message, cancel) still waits for the commit under way: it may not outlive the call unobserved.
    await chain.catch(() => undefined);
  }
  if (signal.aborted) return;
  cancellation.settle();
  call.end();
}

export function streamEventsHandler(deps: GrpcIngestDeps): handleBidiStreamingCall<Buffer, ChunkAck> {
  return (call) => {
    const cancellation = watchCancellation(call);
    const started = process.hrtime.bigint();
    deps.metrics?.streamOpened();
    const ended = (code: number) => {
      deps.metrics?.streamClosed();
      deps.metrics?.callEnded(METHOD, code, secondsSince(started));
    };
    serve(deps, call, cancellation).then(
      () => ended(cancellation.signal.aborted ? status.CANCELLED : status.OK),
      (err: unknown) => {
        if (cancellation.signal.aborted) return ended(status.CANCELLED);
        cancellation.settle();
        const answered = grpcStatusOf(answerableError(err, deps.logger, { method: METHOD }));
        // grpc-js ends a streaming call with this status after the acks already written.
        call.emit('error', answered);
        ended(answered.code);
      },
    );
  };
}
