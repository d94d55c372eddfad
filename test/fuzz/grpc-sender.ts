/**
 * Sends gRPC cases with a grpc-js client that writes the bytes it is given
 * (so malformed messages reach the server) and a deadline per call. A call
 * "answers 5xx" when its status or a chunk ack carries a ClearML result code
 * of 500 or more, or, without one, a server-fault status (INTERNAL, UNKNOWN,
 * DATA_LOSS).
 */
import {
  credentials,
  makeClientConstructor,
  Metadata,
  status as GrpcStatus,
  type Client,
  type ServiceError,
  type StatusObject,
} from '@grpc/grpc-js';
import { fromBinary } from '@bufbuild/protobuf';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import { AddResultSchema, ChunkAckSchema } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';

const passThrough = (bytes: Uint8Array): Buffer => Buffer.from(bytes);
const keep = (bytes: Buffer): Buffer => bytes;

const definition = Object.fromEntries(
  Object.entries(eventsIngestDefinition).map(([name, method]) => [
    name,
    { ...method, requestSerialize: passThrough, responseDeserialize: keep },
  ]),
);
const RawClient = makeClientConstructor(definition as never, 'clearml.events.v1.EventsIngest');

export interface GrpcAnswer {
  kind: 'answer' | 'hang' | 'dropped';
  code: number;
  details: string;
  /** ClearML result code from the trailing metadata, if any. */
  resultCode?: number;
  /** AddResult of Add/AddBatch, or the acks of StreamEvents. */
  result?: { added: number; errors: number; errorsInfo: Record<string, number> };
  acks: Array<{
    chunkId: bigint;
    added: number;
    errors: number;
    errorsInfo: Record<string, number>;
    errorCode?: number;
  }>;
  ms: number;
}

const SERVER_FAULTS = new Set<number>([GrpcStatus.INTERNAL, GrpcStatus.UNKNOWN, GrpcStatus.DATA_LOSS]);

export function grpcIs5xx(answer: GrpcAnswer): boolean {
  if (answer.kind !== 'answer') return false;
  if (answer.acks.some((ack) => (ack.errorCode ?? 0) >= 500)) return true;
  if (answer.resultCode !== undefined) return answer.resultCode >= 500;
  return SERVER_FAULTS.has(answer.code);
}

export class GrpcSender {
  private readonly client: Client & Record<string, (...args: unknown[]) => any>;

  constructor(port: number, maxMessageBytes: number) {
    this.client = new RawClient(`127.0.0.1:${port}`, credentials.createInsecure(), {
      'grpc.max_send_message_length': maxMessageBytes * 4,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
    }) as never;
  }

  close(): void {
    this.client.close();
  }

  async send(
    op: 'grpc.Add' | 'grpc.AddBatch' | 'grpc.StreamEvents',
    metadataPairs: Array<[string, string]>,
    messages: Uint8Array[],
    deadlineMs: number,
  ): Promise<GrpcAnswer> {
    const started = performance.now();
    const metadata = new Metadata();
    for (const [key, value] of metadataPairs) {
      try {
        metadata.add(key, value);
      } catch {
        // grpc-js refuses some keys and values outright; such a call cannot be made by any grpc-js client.
      }
    }
    const options = { deadline: Date.now() + deadlineMs };
    const acks: GrpcAnswer['acks'] = [];
    const finish = (error: ServiceError | StatusObject | null, result?: Buffer): GrpcAnswer => {
      const ms = Math.round(performance.now() - started);
      const code = error?.code ?? GrpcStatus.OK;
      const details = error?.details ?? '';
      const raw = error?.metadata?.get('clearml-result-code')[0];
      const resultCode = raw === undefined ? undefined : Number(raw);
      const decoded = result === undefined ? undefined : fromBinary(AddResultSchema, result);
      const kind =
        code === GrpcStatus.DEADLINE_EXCEEDED
          ? 'hang'
          : code === GrpcStatus.UNAVAILABLE && resultCode === undefined
            ? 'dropped'
            : 'answer';
      return {
        kind,
        code,
        details,
        resultCode,
        result: decoded && { added: decoded.added, errors: decoded.errors, errorsInfo: { ...decoded.errorsInfo } },
        acks,
        ms,
      };
    };
    if (op === 'grpc.Add') {
      return new Promise((resolve) => {
        this.client.Add(
          messages[0] ?? new Uint8Array(),
          metadata,
          options,
          (error: ServiceError | null, result?: Buffer) => resolve(finish(error, result)),
        );
      });
    }
    if (op === 'grpc.AddBatch') {
      return new Promise((resolve) => {
        const call = this.client.AddBatch(metadata, options, (error: ServiceError | null, result?: Buffer) =>
          resolve(finish(error, result)),
        );
        call.on('error', () => undefined);
        for (const message of messages) call.write(message);
        call.end();
      });
    }
    return new Promise((resolve) => {
      const call = this.client.StreamEvents(metadata, options);
      call.on('data', (bytes: Buffer) => {
        try {
          const ack = fromBinary(ChunkAckSchema, bytes);
          acks.push({
            chunkId: ack.chunkId,
            added: ack.added,
            errors: ack.errors,
            errorsInfo: { ...ack.errorsInfo },
            errorCode: ack.error?.code,
          });
        } catch {
          acks.push({ chunkId: -1n, added: 0, errors: 0, errorsInfo: {}, errorCode: 500 });
        }
      });
      call.on('error', () => undefined);
      call.on('status', (s: StatusObject) => resolve(finish(s.code === GrpcStatus.OK ? null : s)));
      for (const message of messages) call.write(message);
      call.end();
    });
  }
}
