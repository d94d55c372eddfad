/**
 * A gRPC call made by hand over HTTP/2, for tests of what a server does with
 * calls no gRPC library would make: a message that declares more bytes than
 * it sends, a call that never sends its message, thousands of streams on one
 * connection.
 */
import http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import { EventBatchSchema, EventSchema } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';

export interface RawGrpcStatus {
  grpcStatus: string | undefined;
  message: string | undefined;
  resultCode: string | undefined;
  retryAfter: string | undefined;
}

export interface RawGrpcCall {
  /** The call's status, from its trailers (or from headers, for a call ended at once). */
  readonly status: Promise<RawGrpcStatus>;
  write(bytes: Uint8Array): void;
  /** Settles when the stream is closed on both sides (the server ends a stream its client did not end). */
  readonly closed: Promise<void>;
  /** Half-closes the call: the client sends nothing more. */
  end(): void;
  /** The next whole response message. */
  nextMessage(): Promise<Buffer>;
}

/** A gRPC message's 5-byte prefix declaring `declared` bytes, followed by `sent` (all of them, or fewer). */
export function framed(sent: Uint8Array, declared = sent.length): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(declared, 1);
  return Buffer.concat([prefix, sent]);
}

export function grpcSession(port: number): http2.ClientHttp2Session {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  return session;
}

export function rawGrpcCall(
  session: http2.ClientHttp2Session,
  path: string,
  authorization: string | undefined,
): RawGrpcCall {
  const stream = session.request({
    ':method': 'POST',
    ':path': path,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...(authorization === undefined ? {} : { authorization }),
  });
  stream.on('error', () => undefined);
  const pick = (headers: http2.IncomingHttpHeaders): RawGrpcStatus => ({
    grpcStatus: headers['grpc-status'] as string | undefined,
    message: headers['grpc-message'] === undefined ? undefined : decodeURI(headers['grpc-message'] as string),
    resultCode: headers['clearml-result-code'] as string | undefined,
    retryAfter: headers['retry-after'] as string | undefined,
  });
  const status = new Promise<RawGrpcStatus>((resolve) => {
    stream.on('response', (headers) => {
      if (headers['grpc-status'] !== undefined) resolve(pick(headers));
    });
    stream.on('trailers', (trailers) => resolve(pick(trailers)));
    stream.on('close', () => resolve(pick({})));
  });

  let received = Buffer.alloc(0);
  const whole: Buffer[] = [];
  const waiting: Array<(message: Buffer) => void> = [];
  stream.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    while (received.length >= 5 && received.length >= 5 + received.readUInt32BE(1)) {
      const end = 5 + received.readUInt32BE(1);
      const message = received.subarray(5, end);
      received = received.subarray(end);
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else whole.push(message);
    }
  });
  const closed = new Promise<void>((resolve) => stream.on('close', () => resolve()));
  return {
    status,
    closed,
    write: (bytes) => stream.write(bytes),
    end: () => stream.end(),
    nextMessage: () => {
      const message = whole.shift();
      return message ? Promise.resolve(message) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** The grpc-status of a whole AddBatch call of one log event to `task`, made on `session`. */
export async function addOneLogEvent(
  session: http2.ClientHttp2Session,
  token: string,
  task: string,
): Promise<string | undefined> {
  const call = rawGrpcCall(session, '/clearml.events.v1.EventsIngest/AddBatch', `Bearer ${token}`);
  const event = create(EventSchema, { type: 'log', task, msg: 'kept' });
  call.write(framed(toBinary(EventBatchSchema, create(EventBatchSchema, { events: [event] }))));
  call.end();
  return (await call.status).grpcStatus;
}
