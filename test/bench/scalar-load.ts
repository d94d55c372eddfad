/**
 * The SDK-shaped scalar load of the ingest benchmarks: events spread over
 * tasks and series with increasing iterations, as NDJSON bodies or gRPC
 * chunks built before the clock starts (training clients encode on their
 * own machines), and the wait until JetStream has nothing left to deliver.
 */
import { credentials, makeClientConstructor, Metadata, type ClientDuplexStream } from '@grpc/grpc-js';
import http from 'node:http';
import { create, toBinary } from '@bufbuild/protobuf';
import { connect } from 'nats';
import { eventsIngestDefinition } from '../../ingest/grpc/events-ingest-definition.js';
import { EventChunkSchema, type ChunkAck } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { streamName } from '../../shared/events/wire-format.js';

const SERIES_PER_TASK = 10;
const TASKS = 20;

/** The i-th event of a phase: scalars spread over tasks and series, iterations increasing. */
export function eventFields(phase: string, i: number) {
  const task = `${phase}-t${i % TASKS}`;
  const series = Math.floor(i / TASKS) % SERIES_PER_TASK;
  const iter = Math.floor(i / (TASKS * SERIES_PER_TASK));
  return { task, metric: `metric${series % 3}`, variant: `variant${series}`, iter, value: (i % 1000) / 7 };
}

/** Events [start, start + count) of the phase as one add_batch body, plus one event of the marker task last. */
export function ndjsonBody(phase: string, start: number, count: number, marker: string): Buffer {
  const lines: string[] = [];
  for (let i = start; i < start + count; i++) {
    const e = eventFields(phase, i);
    lines.push(
      `{"timestamp": ${1718000000000 + i}, "type": "training_stats_scalar", "task": "${e.task}", "iter": ${e.iter}, "metric": "${e.metric}", "variant": "${e.variant}", "value": ${e.value}, "model_event": false, "allow_locked": false}`,
    );
  }
  lines.push(
    `{"type": "training_stats_scalar", "task": "${marker}", "iter": 0, "metric": "m", "variant": "v", "value": 1}`,
  );
  return Buffer.from(lines.join('\n'));
}

export interface Encoded<T> {
  marker: string;
  body: T;
}

/** `events` events of the phase in add_batch bodies of `batch`, each with a marker task of its own. */
export function ndjsonBodies(phase: string, events: number, batch: number): Array<Encoded<Buffer>> {
  const bodies = [];
  for (let start = 0, n = 0; start < events; start += batch, n++)
    bodies.push({
      body: ndjsonBody(phase, start, Math.min(batch, events - start), `${phase}-mk${n}`),
      marker: `${phase}-mk${n}`,
    });
  return bodies;
}

/** The same as StreamEvents chunks; chunk ids count from 0. */
export function grpcChunks(phase: string, events: number, batch: number): Array<Encoded<Uint8Array>> {
  const chunks = [];
  for (let start = 0, n = 0; start < events; start += batch, n++)
    chunks.push({
      body: grpcChunk(phase, n, start, Math.min(batch, events - start), `${phase}-mk${n}`),
      marker: `${phase}-mk${n}`,
    });
  return chunks;
}

/** Chunk `n` of a StreamEvents phase (events [start, start + count), then the marker's event), encoded. */
export function grpcChunk(phase: string, n: number, start: number, count: number, marker: string): Uint8Array {
  const events = [];
  for (let i = start; i < start + count; i++) {
    const e = eventFields(phase, i);
    events.push({
      type: 'training_stats_scalar',
      task: e.task,
      iter: BigInt(e.iter),
      metric: e.metric,
      variant: e.variant,
      value: e.value,
      timestamp: { case: 'timestampMs' as const, value: 1718000000000 + i },
    });
  }
  events.push({ type: 'training_stats_scalar', task: marker, iter: 0n, metric: 'm', variant: 'v', value: 1 });
  return toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId: BigInt(n), events: events as never }));
}

/** The Authorization header value: Basic works on every endpoint, and the ingest target has no auth.login. */
export function basicAuthorization(credential: { access_key: string; secret_key: string }): string {
  return `Basic ${Buffer.from(`${credential.access_key}:${credential.secret_key}`).toString('base64')}`;
}

/**
 * Posts every body to events.add_batch, `concurrency` in flight; a 429 or 503 is sent again after its Retry-After;
 * calls `acked` after each 200 (ms from the first send) and throws on anything else.
 */
export async function postBatches(
  baseUrl: string,
  authorization: string,
  bodies: ReadonlyArray<Encoded<Buffer>>,
  concurrency: number,
  acked: (marker: string, ms: number) => void,
): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(`${baseUrl}/v2.23/events.add_batch`);
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const { body, marker } = bodies[next++]!;
          const sent = performance.now();
          for (;;) {
            const { status, retryAfter } = await postAddBatch(url, authorization, body, agent);
            if (status === 200) break;
            const wait = heldBackMs(status, retryAfter);
            if (wait === undefined) throw new Error(`add_batch answered ${status}`);
            await new Promise((r) => setTimeout(r, wait));
          }
          acked(marker, performance.now() - sent);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
}

/**
 * How long to wait before sending again a call its answer held back (429, 503: the writers behind, a budget
 * full), as the SDK does: its Retry-After, 1 s when absent; undefined for any other answer.
 */
export function heldBackMs(status: number, retryAfter: string | number | undefined): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  const seconds = Number(retryAfter);
  return (retryAfter !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : 1) * 1000;
}

/** One events.add_batch call of an NDJSON body: its status and Retry-After (s; 1 when absent). */
export function postAddBatch(
  url: URL | string,
  authorization: string,
  body: Buffer,
  agent: http.Agent | false,
): Promise<{ status: number; retryAfter: number }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization, 'content-type': 'application/json-lines', 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, retryAfter: Number(response.headers['retry-after'] ?? 1) }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Posts one add_batch body until it is stored, as the ClearML SDK does: a
 * 429 or 503 is sent again after its Retry-After (1 s when absent). Answers
 * how many times it was refused.
 */
export async function postUntilAccepted(baseUrl: string, authorization: string, body: Buffer): Promise<number> {
  const url = new URL(`${baseUrl}/v2.23/events.add_batch`);
  for (let refused = 0; ; refused++) {
    const { status, retryAfter } = await postAddBatch(url, authorization, body, false);
    if (status === 200) return refused;
    const wait = heldBackMs(status, retryAfter);
    if (wait === undefined) throw new Error(`add_batch answered ${status}`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/**
 * Sends every chunk on one StreamEvents stream (as fast as flow control lets it); a chunk refused with 429 or 503 is
 * sent again a second later; calls `acked` per chunk ack (ms from the first send), throws on another refusal.
 */
export async function streamChunks(
  address: string,
  authorization: string,
  chunks: ReadonlyArray<Encoded<Uint8Array>>,
  acked: (marker: string, ms: number) => void,
): Promise<void> {
  // The chunks are already encoded: send the bytes as they are.
  const definition = {
    StreamEvents: {
      ...eventsIngestDefinition.StreamEvents,
      requestSerialize: (bytes: Uint8Array) => Buffer.from(bytes),
    },
  };
  const Client = makeClientConstructor(definition as never, 'clearml.events.v1.EventsIngest');
  const client = new Client(address, credentials.createInsecure(), {
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  });
  const metadata = new Metadata();
  metadata.set('authorization', authorization);
  const sentAt = new Map<bigint, number>();
  try {
    const stream = (
      client as unknown as { StreamEvents(md: Metadata): ClientDuplexStream<unknown, ChunkAck> }
    ).StreamEvents(metadata);
    const done = new Promise<void>((resolve, reject) => {
      let count = 0;
      stream.on('data', (ack: ChunkAck) => {
        const { error } = ack;
        if (error && (error.code === 429 || error.code === 503)) {
          // Held back: the same chunk again after a second, on the same stream (docs/grpc.md).
          setTimeout(() => stream.write(chunks[Number(ack.chunkId)]!.body), 1_000);
          return;
        }
        if (error) reject(new Error(`chunk refused: ${error.message}`));
        acked(chunks[Number(ack.chunkId)]!.marker, performance.now() - sentAt.get(ack.chunkId)!);
        if (++count === chunks.length) resolve();
      });
      stream.on('error', reject);
    });
    for (let n = 0; n < chunks.length; n++) {
      sentAt.set(BigInt(n), performance.now());
      if (!stream.write(chunks[n]!.body)) await new Promise((r) => stream.once('drain', r));
    }
    await done;
    stream.end();
  } finally {
    client.close();
  }
}

/** Resolves when every consumer of the events stream has nothing pending or unacknowledged: everything acknowledged is stored. */
export async function waitUntilStored(natsUrl: string, streamPrefix: string): Promise<void> {
  const nc = await connect({ servers: natsUrl.split(',') });
  const jsm = await nc.jetstreamManager();
  try {
    for (;;) {
      const consumers = await jsm.consumers.list(streamName(streamPrefix)).next();
      const busy = consumers.some((c) => c.num_pending > 0 || c.num_ack_pending > 0);
      if (!busy && consumers.length > 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await nc.close();
  }
}
