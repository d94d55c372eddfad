/**
 * Admits each gRPC call into what a process can hold, as the HTTP front does
 * for requests: a place among the calls open at once (open-call-limit.ts),
 * the bytes of its messages from the body budget while grpc-js buffers them
 * (shared/http/body-memory-budget.ts), and a time to send each message whole.
 *
 * grpc-js buffers a message whole before a handler sees it, up to
 * `grpc.max_receive_message_length` (64 MiB) on every stream of every
 * connection: 16 streams holding 60 MB messages all but their last byte grew
 * an ingest process by 960 MB, through the health service as through
 * EventsIngest, with no credentials for the former. So a message's size is
 * taken from the budget when its prefix arrives (message-prefixes.ts) and
 * given back when the handler receives it; a call that does not fit is ended
 * with RESOURCE_EXHAUSTED 429/0 and Retry-After, never held back (a stream
 * that waited while holding part of a message could wait for streams that
 * wait for it). Methods without credentials (health, reflection), and
 * callers whose credentials are refused, send small messages only.
 *
 * A message must be whole within its deadline, counted from its prefix; a
 * unary call's whole request, its one message and its end, within its
 * deadline from the call's start (grpc-js runs the handler only at the end);
 * otherwise the call ends with 408, like a stalled HTTP upload. Time while
 * grpc-js holds the stream paused, because the handler has not yet taken a
 * message (StreamEvents reads one ahead while a chunk commits), is not the
 * client's and is not counted. A stream between messages has no deadline:
 * StreamEvents and health Watch calls wait for as long as their clients
 * like, each in its place among the open calls.
 * docs/grpc.md, "Messages held in memory" and "Calls held open".
 */
import { constants as http2Constants, type ServerHttp2Stream } from 'node:http2';
import { ServerInterceptingCall, type Metadata, type ServerInterceptor } from '@grpc/grpc-js';
import type { BodyHold, BodyMemoryBudget } from '../../shared/http/body-memory-budget.js';
import { apiError, apiErrorWithMessage, isApiError, type ApiError } from '../../shared/errors/error-catalogue.js';
import { grpcStatusOf } from './grpc-error-status.js';
import { MessagePrefixes } from './message-prefixes.js';
import type { CallRelease, OpenCallLimit } from './open-call-limit.js';

export interface CallAdmissionOptions {
  budget: BodyMemoryBudget;
  openCalls: OpenCallLimit;
  /** The caller's company, from the call's metadata; throws the ApiError (401) of refused credentials. */
  companyOf(metadata: Metadata): string;
  /** Whether the method's handler authenticates its caller (EventsIngest); others take small messages only. */
  authenticates(path: string): boolean;
  /**
   * Largest message of a method without credentials, or of a caller whose credentials were refused
   * (grpc-js reads a unary call's message before its handler runs, and the handler's 401 comes after).
   */
  openMessageBytes: number;
  /** Time to send a message whole, for a caller with valid credentials (HTTP_REQUEST_TIMEOUT_MS). */
  messageMs: number;
  /** The same for any other caller, whose messages are small (HTTP_HEADERS_TIMEOUT_MS). */
  openMessageMs: number;
}

export function callAdmissionInterceptor(options: CallAdmissionOptions): ServerInterceptor {
  return (method, call) => {
    // Only grpc-js's own call (what the first interceptor gets) sees a message's bytes before they are
    // whole: its HTTP/2 stream, which it reads itself. Tested against the grpc-js in use
    // (test/ingest/grpc-message-memory.test.ts).
    const stream = (call as unknown as { stream?: ServerHttp2Stream }).stream;
    const authenticates = options.authenticates(method.path);
    const prefixes = new MessagePrefixes();
    // When each message not yet received began, oldest first; a unary call's one message is due from its start.
    const begun: number[] = method.requestStream ? [] : [Date.now()];
    let prefixesSeen = 0;
    const taken: number[] = [];
    let hold: BodyHold | undefined;
    let place: CallRelease | undefined;
    let deadlineMs = options.openMessageMs;
    let timer: NodeJS.Timeout | undefined;
    // grpc-js pauses the stream while its handler has not taken the last message: time the client cannot send in.
    let pausedAt: number | undefined;
    // The 401 of refused credentials, which a message beyond openMessageBytes is answered with instead of the 413.
    let credentialsRefusal: ApiError | undefined;
    let ended = false;

    const end = (): void => {
      if (ended) return;
      ended = true;
      stream?.off('data', onData);
      stream?.off('pause', onPause);
      stream?.off('resume', onResume);
      if (timer !== undefined) clearTimeout(timer);
      hold?.release();
      place?.();
    };
    const refuse = (error: ApiError): void => {
      end();
      intercepting.sendStatus(grpcStatusOf(error));
    };
    // One timer a call, for its oldest message not yet whole; set again for the next when it fires early.
    const watch = (): void => {
      if (timer !== undefined || ended || begun.length === 0) return;
      timer = setTimeout(onDeadline, Math.max(0, begun[0]! + deadlineMs - Date.now()));
    };
    const onDeadline = (): void => {
      timer = undefined;
      if (begun.length === 0) return;
      const now = Date.now();
      const waited = now - begun[0]! - (pausedAt === undefined ? 0 : now - pausedAt);
      if (waited >= deadlineMs)
        return refuse(apiError('request_timeout', `a message was not whole within ${deadlineMs} ms`));
      if (pausedAt === undefined) return watch();
      timer = setTimeout(onDeadline, deadlineMs - waited);
    };
    const onPause = (): void => {
      pausedAt ??= Date.now();
    };
    // The clock of each message not yet whole stops while the stream is paused.
    const onResume = (): void => {
      if (pausedAt === undefined) return;
      const paused = Date.now() - pausedAt;
      pausedAt = undefined;
      for (let i = 0; i < begun.length; i++) begun[i]! += paused;
    };
    // Runs after grpc-js's own listener (added when it built the call) on the same chunk.
    const onData = (chunk: Buffer): void => {
      for (const size of prefixes.sizesIn(chunk)) {
        if (method.requestStream || prefixesSeen > 0) begun.push(Date.now());
        prefixesSeen++;
        watch();
        if (hold === undefined) {
          if (size > options.openMessageBytes) return refuse(credentialsRefusal ?? openMessageTooLarge(options));
          continue;
        }
        try {
          hold.take(size);
          taken.push(size);
        } catch (error) {
          if (!isApiError(error)) throw error;
          return refuse(error);
        }
      }
    };
    stream?.on('data', onData);
    stream?.on('pause', onPause);
    stream?.on('resume', onResume);
    stream?.once('close', end);

    const intercepting: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            let company: string | undefined;
            if (authenticates) {
              try {
                company = options.companyOf(metadata);
              } catch (error) {
                // The handler authenticates again and answers for any other failure.
                if (isApiError(error)) credentialsRefusal = error;
              }
            }
            try {
              place = options.openCalls.open(company);
            } catch (error) {
              if (!isApiError(error)) throw error;
              return refuse(error);
            }
            if (company !== undefined) {
              hold = options.budget.hold(company);
              deadlineMs = options.messageMs;
            }
            watch();
            nextMetadata(metadata);
          },
          onReceiveMessage: (message, nextMessage) => {
            // A unary call's request is whole at its end: grpc-js runs the handler only then.
            if (method.requestStream) begun.shift();
            const size = taken.shift();
            if (size !== undefined) hold?.give(size);
            nextMessage(message);
          },
          onReceiveHalfClose: (nextHalfClose) => {
            begun.length = 0;
            nextHalfClose();
          },
          onCancel: end,
        }),
      sendStatus: (status, next) => {
        end();
        next(status);
        if (stream) closeOnceAnswered(stream);
      },
    });
    return intercepting;
  };
}

/** Built only when refused: an Error per call would capture a stack on every call's path. */
function openMessageTooLarge(options: CallAdmissionOptions): ApiError {
  return apiErrorWithMessage('body_too_large', `Request body too large (at most ${options.openMessageBytes} bytes)`);
}

/**
 * Ends a stream whose client has not ended its side once the call's status is on its way, as HTTP/2 lets a
 * server that answered before the whole request came (RST_STREAM NO_ERROR, RFC 9113 §8.1). Node keeps a
 * stream until both sides end it: 20,000 answered health calls whose clients never ended theirs stayed held,
 * 5.7 KB each. A status after response messages goes out as trailers, once the last message is sent
 * (grpc-js's own `wantTrailers` listener, which runs first); a status alone goes out at once.
 */
function closeOnceAnswered(stream: ServerHttp2Stream): void {
  if (stream.destroyed || stream.state.remoteClose) return;
  const close = (): void => {
    if (!stream.destroyed && !stream.state.remoteClose) stream.close(http2Constants.NGHTTP2_NO_ERROR);
  };
  if (stream.sentTrailers !== undefined || stream.sentHeaders?.['grpc-status'] !== undefined) close();
  // Trailers are submitted from inside nghttp2's send loop, which would put an RST_STREAM submitted there first.
  else stream.once('wantTrailers', () => setImmediate(close));
}
