// gRPC calls held open (docs/grpc.md, "Calls held open"): a process keeps at most GRPC_MAX_OPEN_CALLS calls open at
// once, a quarter of it per company and a quarter for callers without valid credentials; beyond, a call ends at once
// with RESOURCE_EXHAUSTED 429 and Retry-After, and the others' calls go on. A message must be whole within
// HTTP_REQUEST_TIMEOUT_MS of its start (a unary call's from the call's start), HTTP_HEADERS_TIMEOUT_MS without
// valid credentials, or its call ends with 408; a stream between messages waits as long as its client likes.
// A connection without calls is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS.
import type http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ChunkAckSchema,
  EventChunkSchema,
  EventSchema,
} from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';
import { eventually } from '../harness/eventually.js';
import { heldBodyBytes } from '../harness/held-body-bytes.js';
import { parsePrometheusText, sampleSum } from '../harness/prometheus-text.js';
import { addOneLogEvent, framed, grpcSession, rawGrpcCall, type RawGrpcCall } from '../harness/raw-grpc-call.js';
import { httpRequest } from '../harness/http-request.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

const HEALTH_CHECK = '/grpc.health.v1.Health/Check';
const ADD_BATCH = '/clearml.events.v1.EventsIngest/AddBatch';
const STREAM_EVENTS = '/clearml.events.v1.EventsIngest/StreamEvents';
const HEADERS_MS = 1_500;
const REQUEST_MS = 4_000;
const KEEP_ALIVE_MS = 1_000;
let h: Harness;
let tokenA: string;
let tokenB: string;
const sessions: http2.ClientHttp2Session[] = [];

beforeAll(async () => {
  // 40 calls: a company, or the callers without credentials, hold 10 at most.
  h = await startHarness({
    target: 'ingest',
    env: {
      GRPC_MAX_OPEN_CALLS: '40',
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    },
  });
  [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
});
beforeEach(() => untilOpenCalls(0));
afterEach(() => {
  for (const session of sessions.splice(0)) session.destroy();
});
afterAll(() => h?.stop());

function session(): http2.ClientHttp2Session {
  const opened = grpcSession(h.service.services.boundPorts.get('grpc')!);
  sessions.push(opened);
  return opened;
}

async function openCalls(): Promise<number> {
  return sampleSum(parsePrometheusText((await httpRequest(`${h.baseUrl}/metrics`)).text), 'clearml_grpc_calls_open');
}

function untilOpenCalls(count: number): Promise<number> {
  return eventually(openCalls, (open) => open === count, {
    timeoutMs: 10_000,
    everyMs: 20,
    what: `${count} open calls`,
  });
}

const addBatchStatus = (token: string) => addOneLogEvent(session(), token, unique('open-calls-'));

/** Sends one chunk of one log event on a StreamEvents call and returns its acknowledgement's chunk id. */
async function ackedChunk(call: RawGrpcCall, chunkId: bigint): Promise<bigint> {
  const event = create(EventSchema, { type: 'log', task: unique('open-calls-stream-'), msg: 'kept' });
  call.write(framed(toBinary(EventChunkSchema, create(EventChunkSchema, { chunkId, events: [event] }))));
  return fromBinary(ChunkAckSchema, await call.nextMessage()).chunkId;
}

const TOO_MANY = {
  grpcStatus: '8',
  message: 'Too many calls open, retry later (at most 10 for callers without valid credentials, 40 in all)',
  resultCode: '429',
  retryAfter: '1',
};

describe('gRPC calls held open', () => {
  it('callers without credentials hold a quarter of the calls; their unary calls end with 408 at HTTP_HEADERS_TIMEOUT_MS', async () => {
    // Health checks that never send their message, all on one connection.
    const flood = session();
    const held = Array.from({ length: 10 }, () => rawGrpcCall(flood, HEALTH_CHECK, undefined));
    await untilOpenCalls(10);
    const eleventh = rawGrpcCall(flood, HEALTH_CHECK, undefined);
    expect(await eleventh.status).toEqual(TOO_MANY);
    // The server ends the streams it answered, though their client never ends its side.
    await eleventh.closed;
    // A refused token counts with them.
    const refusedToken = rawGrpcCall(session(), ADD_BATCH, 'Bearer not.a.token');
    expect(await refusedToken.status).toEqual(TOO_MANY);
    // Companies' calls go on.
    expect(await addBatchStatus(tokenA)).toBe('0');

    for (const call of held) {
      expect(await call.status).toMatchObject({ grpcStatus: '3', resultCode: '408' });
      await call.closed;
    }
    await untilOpenCalls(0);
    // A whole message is not a whole request: a unary call's handler runs at the request's end.
    const unended = rawGrpcCall(flood, HEALTH_CHECK, undefined);
    unended.write(framed(new Uint8Array(0)));
    expect(await unended.status).toMatchObject({ grpcStatus: '3', resultCode: '408' });
    await unended.closed;
    const check = rawGrpcCall(flood, HEALTH_CHECK, undefined);
    check.write(framed(new Uint8Array(0)));
    check.end();
    expect((await check.status).grpcStatus).toBe('0');
  });

  it("a company holds a quarter of the calls; another company's calls go on; a place is free again once a call ends", async () => {
    const streamsA = Array.from({ length: 10 }, () => rawGrpcCall(session(), STREAM_EVENTS, `Bearer ${tokenA}`));
    await untilOpenCalls(10);
    const eleventh = rawGrpcCall(session(), STREAM_EVENTS, `Bearer ${tokenA}`);
    expect(await eleventh.status).toEqual({
      ...TOO_MANY,
      message: 'Too many calls open, retry later (at most 10 for a company, 40 in all)',
    });
    expect(await addBatchStatus(tokenA)).toBe('8');

    const streamB = rawGrpcCall(session(), STREAM_EVENTS, `Bearer ${tokenB}`);
    expect(await ackedChunk(streamB, 1n)).toBe(1n);
    expect(await addBatchStatus(tokenB)).toBe('0');
    // A's streams between messages are still open, and take chunks.
    expect(await ackedChunk(streamsA[0]!, 5n)).toBe(5n);

    streamsA[9]!.end();
    expect((await streamsA[9]!.status).grpcStatus).toBe('0');
    const again = rawGrpcCall(session(), STREAM_EVENTS, `Bearer ${tokenA}`);
    expect(await ackedChunk(again, 2n)).toBe(2n);
  });

  it('a message not whole within HTTP_REQUEST_TIMEOUT_MS ends its call with 408 and gives back its bytes; a stream between messages stays', async () => {
    const idle = rawGrpcCall(session(), STREAM_EVENTS, `Bearer ${tokenA}`);
    const unary = rawGrpcCall(session(), ADD_BATCH, `Bearer ${tokenA}`);
    unary.write(framed(Buffer.alloc(100), 100_000));
    const streamed = rawGrpcCall(session(), STREAM_EVENTS, `Bearer ${tokenA}`);
    expect(await ackedChunk(streamed, 1n)).toBe(1n);
    streamed.write(framed(Buffer.alloc(100), 100_000));
    expect(await heldBodyBytes(h.baseUrl)).toBeGreaterThan(0);

    const started = Date.now();
    for (const call of [unary, streamed]) {
      expect(await call.status).toEqual({
        grpcStatus: '3',
        message: `Request timeout (a message was not whole within ${REQUEST_MS} ms)`,
        resultCode: '408',
        retryAfter: undefined,
      });
      await call.closed;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_MS - 1_000);
    expect(await heldBodyBytes(h.baseUrl)).toBe(0);
    // Opened before both, it waited longer than their deadline with no message begun.
    expect(await ackedChunk(idle, 3n)).toBe(3n);
  });

  it('a connection without calls is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const idle = session();
    const closed = new Promise<number>((resolve) => idle.once('close', () => resolve(Date.now())));
    await new Promise<void>((resolve) => idle.once('connect', () => resolve()));
    const connected = Date.now();
    expect((await closed) - connected).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 100);
  });
});
