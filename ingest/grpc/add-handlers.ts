/**
 * EventsIngest.Add and EventsIngest.AddBatch: one request each, answered
 * like events.add / events.add_batch.
 */
import { create } from '@bufbuild/protobuf';
import { status, type handleClientStreamingCall, type handleUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import type { IngestResult } from '../events/ingest-port.js';
import { decodeRequest } from './events-ingest-definition.js';
import { assertEventsBounded, EVENT_BATCH } from './message-event-count.js';
import {
  AddResultSchema,
  EventBatchSchema,
  EventSchema,
  type AddResult,
} from './gen/clearml/events/v1/events_ingest_pb.js';
import { IDEMPOTENCY_KEY_HEADER, RequestFingerprint } from '../events/request-fingerprint.js';
import {
  firstMetadataValue,
  ingestContextFor,
  secondsSince,
  watchCancellation,
  type CallCancellation,
  type GrpcIngestDeps,
} from './grpc-call-context.js';
import type { GrpcMethod } from './grpc-metrics.js';
import { answerableError, grpcStatusOf } from './grpc-error-status.js';
import { addProtoEvents, ingestProtoEvents } from './proto-event-session.js';
import { readOneAhead } from './read-ahead.js';

function toAddResult(result: IngestResult): AddResult {
  return create(AddResultSchema, { added: result.added, errors: result.errors, errorsInfo: result.errors_info });
}

function answer(
  deps: GrpcIngestDeps,
  method: GrpcMethod,
  cancellation: CallCancellation,
  callback: sendUnaryData<AddResult>,
  work: Promise<IngestResult | undefined>,
): void {
  const started = process.hrtime.bigint();
  const ended = (code: number) => deps.metrics?.callEnded(method, code, secondsSince(started));
  work.then(
    (result) => {
      cancellation.settle();
      if (result === undefined) return ended(status.CANCELLED);
      callback(null, toAddResult(result));
      ended(status.OK);
    },
    (err: unknown) => {
      // A cancelled call has no one to answer; its session was told to stop.
      if (cancellation.signal.aborted) return ended(status.CANCELLED);
      cancellation.settle();
      const answered = grpcStatusOf(answerableError(err, deps.logger, { method }));
      callback(answered);
      ended(answered.code);
    },
  );
}

export function addHandler(deps: GrpcIngestDeps): handleUnaryCall<Buffer, AddResult> {
  return (call, callback) => {
    const cancellation = watchCancellation(call);
    const work = (async () => {
      const fingerprint = RequestFingerprint.of('grpc.add', firstMetadataValue(call.metadata, IDEMPOTENCY_KEY_HEADER));
      const context = { ...ingestContextFor(deps, call.metadata, cancellation.signal), fingerprint };
      deps.ingestMetrics?.received('grpc', call.request.length);
      const event = decodeRequest(EventSchema, call.request);
      fingerprint.update(call.request);
      return ingestProtoEvents(deps.ingest, context, [event]);
    })();
    answer(deps, 'Add', cancellation, callback, work);
  };
}

/**
 * A request whose client goes away before it is complete is discarded, never
 * committed in part. Node's HTTP/2 layer reports a reset stream or a dropped
 * connection as the end of the input, followed within the same I/O callback
 * by the close that grpc-js turns into 'cancelled': one event-loop turn after
 * the input ends is enough to tell the two apart. A client that half-closes
 * and cancels later (a grpc-js client's cancel sends END_STREAM, then
 * RST_STREAM) did send a complete request: its commit runs, and the session
 * signal tells the session to stop.
 */
export function addBatchHandler(deps: GrpcIngestDeps): handleClientStreamingCall<Buffer, AddResult> {
  return (call, callback) => {
    const cancellation = watchCancellation(call);
    const work = (async () => {
      const fingerprint = RequestFingerprint.of(
        'grpc.add_batch',
        firstMetadataValue(call.metadata, IDEMPOTENCY_KEY_HEADER),
      );
      const context = { ...ingestContextFor(deps, call.metadata, cancellation.signal), fingerprint };
      const session = deps.ingest.begin(context);
      try {
        // Events are checked as batches arrive, so only their compact form
        // waits for the end of the call, never the whole request. grpc-js
        // destroys the stream on cancel, which ends this loop with an error.
        // (Concatenated batches are the events in order, however the client split them: so is their fingerprint.)
        readOneAhead(call, deps.logger);
        for await (const bytes of call) {
          deps.ingestMetrics?.received('grpc', (bytes as Buffer).length);
          assertEventsBounded(bytes as Buffer, EVENT_BATCH);
          addProtoEvents(session, decodeRequest(EventBatchSchema, bytes as Buffer).events);
          fingerprint.update(bytes as Buffer);
        }
      } catch (err) {
        session.discard(cancellation.signal.aborted ? undefined : err);
        throw err;
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (cancellation.signal.aborted) {
        session.discard();
        return undefined;
      }
      return session.commit();
    })();
    answer(deps, 'AddBatch', cancellation, callback, work);
  };
}
