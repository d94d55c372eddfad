/**
 * How many messages a gRPC stream's server side reads ahead of its handler.
 *
 * grpc-js serves a streaming call as an object-mode Readable, which keeps
 * asking for messages until 16 wait in its buffer (Node's default for object
 * mode), and grpc-js offers no option for it. StreamEvents takes one message
 * at a time and commits chunks one after another, so those 16 only wait: up
 * to 16 × the gRPC message limit (64 MiB) of one client's bytes per stream,
 * and ~1 s more before a chunk's ack in bench:ingest. Chunks that wait that
 * long also outlive young collections, so their buffers are freed only by
 * full ones (docs/grpc.md, "Read-ahead"). AddBatch's stream is read the
 * same way.
 */
import type { Readable } from 'node:stream';
import type { GrpcIngestLogger } from './grpc-call-context.js';

let unlimitedWarned = false;

/** A call's stream reads one message ahead of its handler; where the runtime does not allow it, a warning once per process. */
export function readOneAhead(call: Readable, logger: GrpcIngestLogger): void {
  if (limitReadAhead(call, 1) || unlimitedWarned) return;
  unlimitedWarned = true;
  logger.warn(
    { readAhead: call.readableHighWaterMark },
    'this Node keeps no read-ahead limit on gRPC streams: each may hold 16 messages (docs/grpc.md)',
  );
}

/**
 * Lets `stream` buffer at most `messages` messages ahead of its reader.
 * Answers false (and changes nothing) where the runtime's Readable does not
 * keep its limit where Node 20-24 do; the stream then reads ahead as before.
 */
export function limitReadAhead(stream: Readable, messages: number): boolean {
  // Node reads the limit from the stream's state each time it decides to read more, so lowering it after
  // construction takes effect at the next read; the public getter (`readableHighWaterMark`) reports it.
  const state = (stream as unknown as { _readableState?: { highWaterMark?: unknown } })._readableState;
  if (state === undefined || typeof state.highWaterMark !== 'number') return false;
  state.highWaterMark = messages;
  return stream.readableHighWaterMark === messages;
}
