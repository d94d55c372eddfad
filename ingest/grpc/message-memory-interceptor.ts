/**
 * Bounds the bytes grpc-js holds for request messages, as the HTTP front
 * bounds the bodies it holds (shared/http/body-memory-budget.ts, the same
 * budget). grpc-js buffers a message whole before a handler sees it, up to
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
 * docs/grpc.md, "Messages held in memory".
 */
import type { Readable } from 'node:stream';
import { ServerInterceptingCall, type Metadata, type ServerInterceptor } from '@grpc/grpc-js';
import type { BodyHold, BodyMemoryBudget } from '../../shared/http/body-memory-budget.js';
import { apiErrorWithMessage, isApiError, type ApiError } from '../../shared/errors/error-catalogue.js';
import { grpcStatusOf } from './grpc-error-status.js';
import { MessagePrefixes } from './message-prefixes.js';

export interface MessageMemoryOptions {
  budget: BodyMemoryBudget;
  /** The caller's company, from the call's metadata; throws the ApiError (401) of refused credentials. */
  companyOf(metadata: Metadata): string;
  /** Whether the method's handler authenticates its caller (EventsIngest); others take small messages only. */
  authenticates(path: string): boolean;
  /**
   * Largest message of a method without credentials, or of a caller whose credentials were refused
   * (grpc-js reads a unary call's message before its handler runs, and the handler's 401 comes after).
   */
  openMessageBytes: number;
}

export function messageMemoryInterceptor(options: MessageMemoryOptions): ServerInterceptor {
  return (method, call) => {
    // Only grpc-js's own call (what the first interceptor gets) sees a message's bytes before they are
    // whole: its HTTP/2 stream, which it reads itself. Tested against the grpc-js in use
    // (test/ingest/grpc-message-memory.test.ts).
    const stream = (call as unknown as { stream?: Readable }).stream;
    const authenticates = options.authenticates(method.path);
    const prefixes = new MessagePrefixes();
    const taken: number[] = [];
    let hold: BodyHold | undefined;
    // Why a message beyond openMessageBytes is refused: too large for a method without credentials, or the caller's 401.
    let openRefusal: ApiError = apiErrorWithMessage(
      'body_too_large',
      `Request body too large (at most ${options.openMessageBytes} bytes)`,
    );
    let ended = false;

    const end = (): void => {
      if (ended) return;
      ended = true;
      stream?.off('data', onData);
      hold?.release();
    };
    const refuse = (error: ApiError): void => {
      end();
      intercepting.sendStatus(grpcStatusOf(error));
    };
    // Runs after grpc-js's own listener (added when it built the call) on the same chunk.
    const onData = (chunk: Buffer): void => {
      for (const size of prefixes.sizesIn(chunk)) {
        if (hold === undefined) {
          if (size > options.openMessageBytes) return refuse(openRefusal);
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
    stream?.once('close', end);

    const intercepting: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            if (authenticates) {
              try {
                hold = options.budget.hold(options.companyOf(metadata));
              } catch (error) {
                // The handler authenticates again and answers for any other failure.
                if (isApiError(error)) openRefusal = error;
              }
            }
            nextMetadata(metadata);
          },
          onReceiveMessage: (message, nextMessage) => {
            const size = taken.shift();
            if (size !== undefined) hold?.give(size);
            nextMessage(message);
          },
          onCancel: end,
        }),
      sendStatus: (status, next) => {
        end();
        next(status);
      },
    });
    return intercepting;
  };
}
