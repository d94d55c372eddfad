// Bodies held in memory (docs/protocol.md): MAX_BODY_BYTES bounds one body, HTTP_MAX_BUFFERED_BODY_BYTES how
// many a process holds at once, a quarter of it per company. A body's declared length is taken before any
// of it is read; beyond its company's quarter a call is refused at once with 429 and Retry-After, while
// another company's calls go on; what a call held is given back when it is answered.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBodyBytes, untilHeldBodyBytes } from '../harness/held-body-bytes.js';
import { startHarness, type Harness } from '../harness/service-harness.js';

const MiB = 1024 * 1024;
let h: Harness;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  h = await startHarness({
    target: 'all',
    env: { MAX_BODY_BYTES: String(4 * MiB), HTTP_MAX_BUFFERED_BODY_BYTES: String(32 * MiB) },
  });
  [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
});
afterAll(() => h?.stop());

/** A call whose body is sent in part: its headers declare `length` bytes; `finish` sends the rest and answers the status. */
function partialCall(operation: string, token: string, length: number, contentType = 'application/json') {
  const url = new URL(h.baseUrl);
  const socket = net.connect(Number(url.port), url.hostname);
  const received: Buffer[] = [];
  socket.on('data', (chunk) => received.push(chunk));
  const body = Buffer.from(`{"pad": "${'x'.repeat(length - 11)}"}`);
  expect(body.length).toBe(length);
  socket.write(
    `POST /v2.23/${operation} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: ${contentType}\r\ncontent-length: ${length}\r\nconnection: close\r\n\r\n`,
  );
  socket.write(body.subarray(0, MiB));
  return {
    async finish(): Promise<number> {
      // Not half-closed: the server ends the connection after its answer (`connection: close`).
      socket.write(body.subarray(MiB));
      await new Promise((resolve) => socket.on('close', resolve));
      return Number(Buffer.concat(received).toString('latin1').split(' ')[1]);
    },
  };
}

const call = (operation: string, token: string) =>
  h.call(`v2.23/${operation}`, undefined, {
    token,
    rawBody: '{"page_size": 1}',
    headers: { 'content-type': 'application/json' },
  });

describe('bodies held in memory', () => {
  it("a company holding its quarter gets 429 with Retry-After at once; another company's calls go on; answered calls give it back", async () => {
    expect(await heldBodyBytes(h.baseUrl)).toBe(0);
    // Two bodies of 4 MiB declared, 1 MiB of each sent: company A holds its quarter (8 MiB) before reading them.
    const first = partialCall('reports.get_all_ex', tokenA, 4 * MiB);
    const second = partialCall('events.add_batch', tokenA, 4 * MiB);
    await untilHeldBodyBytes(h.baseUrl, 8 * MiB);

    const refused = await call('reports.get_all_ex', tokenA);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.meta).toMatchObject({
      result_code: 429,
      result_subcode: 0,
      result_msg: 'Too many request bodies in memory, retry later',
    });
    expect((await call('reports.get_all_ex', tokenB)).status).toBe(200);

    // Answered (the padding is no field of either operation: a 400), the bodies are given back.
    expect(await first.finish()).toBeLessThan(500);
    expect(await second.finish()).toBeLessThan(500);
    await untilHeldBodyBytes(h.baseUrl, 0);
    expect((await call('reports.get_all_ex', tokenA)).status).toBe(200);
  });
});
