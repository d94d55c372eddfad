/**
 * gRPC clients of the fault load (docs/grpc.md), retrying like the HTTP ones:
 *
 * - AddBatch: one call per request (the events in two EventBatch messages),
 *   with a deadline; re-sent, the same bytes, until it is answered.
 * - StreamEvents: one long stream with up to WINDOW chunks unacknowledged.
 *   A chunk acknowledged with a 5xx/429 error is written again on the same
 *   stream after a back-off; when the stream fails (or no ack comes within
 *   the timeout) the client opens a new one and re-sends every chunk not yet
 *   acknowledged, in order, the same bytes (same chunk ids).
 *
 * A gRPC status carrying the ClearML result code is an answer with that
 * code; any other failure status (connection refused or dropped, deadline)
 * is "no answer".
 */
import { create, toBinary } from '@bufbuild/protobuf';
import {
  credentials,
  makeClientConstructor,
  Metadata,
  status as GrpcCode,
  type Client,
  type ClientDuplexStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import {
  EventBatchSchema,
  EventChunkSchema,
  type AddResult,
  type ChunkAck,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { RESULT_CODE_METADATA } from '../../ingest/grpc/grpc-error-status.js';
import { sendBatchesInTurn, type LoadClientOptions } from './load-client.js';
import { loadBatch, protoEvents } from './load-events.js';
import { backoffMs, describeAttempt, judge, type Attempt } from './sdk-retry.js';
import { RequestHistory } from './ack-ledger.js';
import { StreamInbox } from './stream-inbox.js';

/** Chunks a stream client keeps unacknowledged at most. */
const WINDOW = 4;

const passThrough = (bytes: Buffer) => bytes;
const definition = {
  AddBatch: { ...eventsIngestDefinition.AddBatch, requestSerialize: passThrough },
  StreamEvents: { ...eventsIngestDefinition.StreamEvents, requestSerialize: passThrough },
};
const IngestClient = makeClientConstructor(definition as never, 'clearml.events.v1.EventsIngest');

interface BytesClient extends Client {
  AddBatch(
    metadata: Metadata,
    options: { deadline: number },
    callback: (error: ServiceError | null, result?: AddResult) => void,
  ): { write(bytes: Buffer): boolean; end(): void };
  StreamEvents(metadata: Metadata): ClientDuplexStream<Buffer, ChunkAck>;
}

function openClient(address: string): BytesClient {
  // The SDK's back-off, not grpc-js's (which grows to 2 minutes), decides how soon a client tries again.
  return new IngestClient(address, credentials.createInsecure(), {
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 2_000,
  }) as unknown as BytesClient;
}

function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

export function attemptOfStatus(error: ServiceError): Attempt {
  const code = Number(error.metadata?.get(RESULT_CODE_METADATA)[0]);
  if (code > 0) {
    const retryAfter = error.metadata.get('retry-after')[0];
    return {
      kind: 'answered',
      code,
      message: error.details,
      retryAfterSec: retryAfter === undefined ? undefined : Number(retryAfter),
    };
  }
  return { kind: 'no-answer', reason: `${GrpcCode[error.code] ?? error.code} ${error.details}` };
}

export async function runGrpcAddBatchClient(address: string, options: LoadClientOptions): Promise<void> {
  const client = openClient(address);
  const metadata = bearer(options.token);
  try {
    await sendBatchesInTurn(options, (batch) => {
      const events = protoEvents(batch);
      const half = Math.ceil(events.length / 2);
      const messages = [events.slice(0, half), events.slice(half)].map((part) =>
        Buffer.from(toBinary(EventBatchSchema, create(EventBatchSchema, { events: part }))),
      );
      return () => addBatchOnce(client, metadata, messages, options.policy.timeoutMs);
    });
  } finally {
    client.close();
  }
}

function addBatchOnce(
  client: BytesClient,
  metadata: Metadata,
  messages: Buffer[],
  timeoutMs: number,
): Promise<Attempt> {
  return new Promise((resolve) => {
    const call = client.AddBatch(metadata, { deadline: Date.now() + timeoutMs }, (error, result) => {
      resolve(error ? attemptOfStatus(error) : { kind: 'answered', code: 200, added: result?.added });
    });
    for (const message of messages) call.write(message);
    call.end();
  });
}

interface PendingChunk {
  id: bigint;
  bytes: Buffer;
  keys: string[];
  /** When it was last written on the current stream; undefined while it waits to be written. */
  sentAt?: number;
  /** Re-send due (after an error ack) at this time. */
  retryAt?: number;
  retries: number;
  writes: number;
  history: RequestHistory;
}

export async function runGrpcStreamClient(address: string, options: LoadClientOptions): Promise<void> {
  const client = openClient(address);
  const metadata = bearer(options.token);
  const { ledger, policy } = options;
  const pending: PendingChunk[] = [];
  let nextEvent = 0;
  let nextChunkAt = 0;
  let failures = 0;
  /** Every chunk's history by id, also after its ack (a late second ack is part of the story). */
  const histories = new Map<bigint, RequestHistory>();

  const newChunk = (): PendingChunk => {
    const id = BigInt(nextEvent / options.batchEvents);
    const batch = loadBatch(options.task, nextEvent, options.batchEvents);
    nextEvent += options.batchEvents;
    ledger.counters.requests++;
    const bytes = Buffer.from(
      toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: id, events: protoEvents(batch) })),
    );
    const history = new RequestHistory();
    histories.set(id, history);
    ledger.recordRequest(options.task, batch.keys, history);
    return { id, bytes, keys: batch.keys, retries: 0, writes: 0, history };
  };

  /** One stream: resolves with the wait before the next one, or undefined when there is nothing left to send. */
  const streamOnce = async (): Promise<number | undefined> => {
    const stream = client.StreamEvents(metadata);
    const inbox = new StreamInbox(stream);
    const write = (chunk: PendingChunk) => {
      chunk.sentAt = Date.now();
      chunk.retryAt = undefined;
      chunk.history.add(chunk.writes++ === 0 ? 'sent' : 're-sent');
      stream.write(chunk.bytes);
    };
    /** When the oldest chunk still waiting for its ack was written: the failure of the stream is that chunk's. */
    const firstSent = () => Math.min(Date.now(), ...pending.flatMap((c) => (c.sentAt === undefined ? [] : [c.sentAt])));
    const streamFailed = (what: string) => {
      for (const chunk of pending) if (chunk.sentAt !== undefined) chunk.history.add(`stream failed: ${what}`);
    };
    pending.forEach(write);
    for (;;) {
      const now = Date.now();
      if (pending.length === 0 && !options.producing()) {
        stream.end();
        await inbox.closed(policy.timeoutMs);
        return undefined;
      }
      if (now > options.giveUpAt()) {
        stream.cancel();
        return undefined;
      }
      for (const chunk of pending) if (chunk.retryAt !== undefined && chunk.retryAt <= now) write(chunk);
      if (options.producing() && pending.length < WINDOW && now >= nextChunkAt) {
        const chunk = newChunk();
        pending.push(chunk);
        write(chunk);
        nextChunkAt = now + options.intervalMs;
        continue;
      }
      const sent = pending.flatMap((c) => (c.sentAt === undefined ? [] : [c.sentAt]));
      const ackDeadline = sent.length > 0 ? Math.min(...sent) + policy.timeoutMs : Infinity;
      const wake = Math.min(
        options.giveUpAt() + 1,
        ackDeadline,
        options.producing() && pending.length < WINDOW ? nextChunkAt : Infinity,
        ...pending.flatMap((c) => (c.retryAt === undefined ? [] : [c.retryAt])),
      );
      const event = await inbox.next(Math.max(0, wake - now));
      if (event === undefined) {
        if (Date.now() >= ackDeadline) {
          const attempt: Attempt = { kind: 'no-answer', reason: `no ack within ${policy.timeoutMs} ms` };
          streamFailed(describeAttempt(attempt));
          judge(attempt, 0, ledger, options.name, firstSent());
          stream.cancel();
          return backoffMs(++failures, policy);
        }
        continue;
      }
      if (event.kind === 'failed') {
        const attempt = attemptOfStatus(event.error);
        streamFailed(describeAttempt(attempt));
        if (judge(attempt, 0, ledger, options.name, firstSent()) === 'rejected') pending.splice(0);
        return backoffMs(++failures, policy, attempt.kind === 'answered' ? attempt.retryAfterSec : undefined);
      }
      if (event.kind === 'ended') {
        const attempt: Attempt = { kind: 'no-answer', reason: 'stream ended with chunks unacknowledged' };
        streamFailed(describeAttempt(attempt));
        judge(attempt, 0, ledger, options.name, firstSent());
        return backoffMs(++failures, policy);
      }
      failures = 0;
      const { ack } = event;
      const attempt: Attempt = ack.error
        ? { kind: 'answered', code: ack.error.code, message: ack.error.message }
        : { kind: 'answered', code: 200, added: ack.added };
      histories.get(ack.chunkId)?.add(`ack ${describeAttempt(attempt)}`);
      const index = pending.findIndex((c) => c.id === ack.chunkId);
      if (index < 0) continue;
      const chunk = pending[index]!;
      const verdict = judge(attempt, chunk.keys.length, ledger, options.name, chunk.sentAt);
      if (verdict === 'retry') {
        chunk.sentAt = undefined;
        chunk.retryAt = Date.now() + backoffMs(++chunk.retries, policy);
        continue;
      }
      pending.splice(index, 1);
      if (verdict === 'acked') ledger.ack(options.task, chunk.keys);
    }
  };

  try {
    while (options.producing() || pending.length > 0) {
      if (Date.now() > options.giveUpAt()) {
        for (const chunk of pending) {
          ledger.note('abandoned', `${options.name}: chunk ${chunk.id} without an ack before the scenario's deadline`);
          chunk.history.add('abandoned');
        }
        break;
      }
      const wait = await streamOnce();
      if (wait !== undefined) await sleep(Math.min(wait, Math.max(0, options.giveUpAt() - Date.now())));
    }
  } finally {
    client.close();
  }
}
