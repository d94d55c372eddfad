// gRPC messages held in memory (docs/grpc.md, "Messages held in memory"): grpc-js buffers a message whole before a
// handler sees it, so a message's size is taken from the process's body budget (HTTP_MAX_BUFFERED_BODY_BYTES, a
// quarter per company, shared with HTTP bodies) as soon as its prefix arrives. A call beyond its company's
// quarter ends at once with RESOURCE_EXHAUSTED 429 and Retry-After while other companies' calls go on; what a call
// held is given back when its handler receives the message or the call ends. Methods without credentials
// (health, reflection) and callers whose credentials are refused send at most 64 KiB a message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBodyBytes, untilHeldBodyBytes } from '../harness/held-body-bytes.js';
import { addOneLogEvent, framed, grpcSession, rawGrpcCall } from '../harness/raw-grpc-call.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

const MiB = 1024 * 1024;
const ADD_BATCH = '/clearml.events.v1.EventsIngest/AddBatch';
let h: Harness;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  // A quarter of 8 MiB: a company holds 2 MiB at most once it holds anything.
  h = await startHarness({ target: 'ingest', env: { HTTP_MAX_BUFFERED_BODY_BYTES: String(8 * MiB) } });
  [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
});
afterAll(() => h?.stop());

/**
 * A gRPC call on its own HTTP/2 connection whose one message declares `declared` bytes and sends `sent` of
 * them: the message is whole when they match, and `end` half-closes the call.
 */
function rawCall(path: string, authorization: string | undefined, declared: number, sent: Buffer) {
  const session = grpcSession(h.service.services.boundPorts.get('grpc')!);
  const call = rawGrpcCall(session, path, authorization);
  call.write(framed(sent, declared));
  return { status: call.status, end: () => call.end(), close: () => session.destroy() };
}

/** The grpc-status of a whole AddBatch call of one log event, to a task named from `prefix`. */
async function addBatchStatus(token: string, prefix: string): Promise<string | undefined> {
  const session = grpcSession(h.service.services.boundPorts.get('grpc')!);
  try {
    return await addOneLogEvent(session, token, unique(prefix));
  } finally {
    session.destroy();
  }
}

describe('gRPC messages held in memory', () => {
  it("a company's message beyond its quarter ends its call with 429; another company's calls go on; holds are given back", async () => {
    // Company A holds 1.5 MiB of a message not yet whole.
    const first = rawCall(ADD_BATCH, `Bearer ${tokenA}`, 1.5 * MiB, Buffer.alloc(MiB));
    await untilHeldBodyBytes(h.baseUrl, 1.5 * MiB + 5);

    const second = rawCall(ADD_BATCH, `Bearer ${tokenA}`, MiB, Buffer.alloc(1024));
    expect(await second.status).toEqual({
      grpcStatus: '8',
      message: 'Too many request bodies in memory, retry later',
      resultCode: '429',
      retryAfter: '1',
    });
    second.close();
    // The budget is the HTTP front's too.
    const http = await h.call('events.add_batch', undefined, {
      token: tokenA,
      headers: { 'content-type': 'application/json' },
      rawBody: JSON.stringify({ type: 'log', task: unique('http-'), msg: 'x'.repeat(MiB) }),
    });
    expect(http.status).toBe(429);

    expect(await addBatchStatus(tokenB, 'b-')).toBe('0');

    first.close();
    await untilHeldBodyBytes(h.baseUrl, 0);
    expect(await addBatchStatus(tokenA, 'a-')).toBe('0');
    expect(await heldBodyBytes(h.baseUrl)).toBe(0);
  });

  it("a message over grpc-js's own limit leaves nothing held, though its stream stays open", async () => {
    // grpc-js ends such a call itself; what the interceptor took of the declared 4 GB goes with the call.
    const huge = rawCall(ADD_BATCH, `Bearer ${tokenA}`, 2 ** 32 - 1, Buffer.alloc(10));
    expect((await huge.status).grpcStatus).toBe('8');
    expect(await heldBodyBytes(h.baseUrl)).toBe(0);
    expect(await addBatchStatus(tokenB, 'b-')).toBe('0');
    huge.close();
  });

  it('health and reflection, and callers whose credentials are refused, send at most 64 KiB a message', async () => {
    const health = rawCall('/grpc.health.v1.Health/Check', undefined, 64 * 1024 + 1, Buffer.alloc(10));
    expect(await health.status).toMatchObject({ grpcStatus: '8', resultCode: '413' });
    health.close();
    const refused = rawCall(ADD_BATCH, 'Bearer not.a.token', MiB, Buffer.alloc(10));
    expect(await refused.status).toMatchObject({ grpcStatus: '16', resultCode: '401' });
    refused.close();
    // A health check of the usual size is answered.
    const check = rawCall('/grpc.health.v1.Health/Check', undefined, 0, Buffer.alloc(0));
    check.end();
    expect((await check.status).grpcStatus).toBe('0');
    check.close();
    expect(await heldBodyBytes(h.baseUrl)).toBe(0);
  });
});
