// Connections (docs/protocol.md, "Connections"): each listener of a process, the HTTP API and the gRPC ingest, holds
// at most MAX_CONNECTIONS client connections at once; beyond, a new connection is closed as soon as it is accepted,
// the clients already connected go on, and the listener accepts again once connections close. With OPS_PORT,
// /health, /ready and /metrics have a listener of their own, capped apart (docs/operations.md, "The operations
// listener").
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { httpRequest } from '../harness/http-request.js';
import { parsePrometheusText, sampleSum } from '../harness/prometheus-text.js';
import { addOneLogEvent, grpcSession } from '../harness/raw-grpc-call.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

const CAP = 30;
const OPS_CAP = 5;
let h: Harness;
let token: string;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  h = await startHarness({
    target: 'ingest',
    env: { MAX_CONNECTIONS: String(CAP), OPS_PORT: '0', OPS_MAX_CONNECTIONS: String(OPS_CAP) },
  });
  token = await h.login(h.credentials.a);
});
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});
afterAll(() => h?.stop());

/** Opens `count` connections that send nothing; settles with how many of them the server closed. */
function silentConnections(port: number, count: number): { closedByServer(): number } {
  let closedByServer = 0;
  for (let i = 0; i < count; i++) {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    // Only the server ends these: the test destroys its own without an 'end'.
    socket.on('end', () => closedByServer++);
    sockets.push(socket);
  }
  return { closedByServer: () => closedByServer };
}

/** What a new connection gets for a GET of `path` before it is closed ('' when closed unanswered). */
function answerOnNewConnection(port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    );
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
  });
}

function opsUrl(path: string): string {
  return `http://127.0.0.1:${h.service.services.boundPorts.get('ops')}${path}`;
}

async function dropped(listener: string, base = h.baseUrl): Promise<number> {
  const scrape = parsePrometheusText((await httpRequest(`${base}/metrics`)).text);
  return sampleSum(scrape, 'clearml_connections_dropped_total', { listener });
}

async function addBatchOverGrpc(): Promise<string | undefined> {
  const session = grpcSession(h.service.services.boundPorts.get('grpc')!);
  try {
    return await addOneLogEvent(session, token, unique('cap-'));
  } finally {
    session.destroy();
  }
}

describe('connections per listener', () => {
  it.each([
    ['http', () => Number(new URL(h.baseUrl).port)],
    ['grpc', () => h.service.services.boundPorts.get('grpc')!],
  ])(
    '%s: connections beyond MAX_CONNECTIONS are closed at once; the listener accepts again once they close',
    async (listener, port) => {
      const before = await dropped(listener);
      // Ten more than the cap: whatever the harness itself holds, at least ten are closed by the server.
      const flood = silentConnections(port(), CAP + 10);
      await eventually(
        async () => flood.closedByServer(),
        (closed) => closed >= 10,
        { timeoutMs: 10_000, what: 'connections closed by the server' },
      );
      expect(flood.closedByServer()).toBeLessThanOrEqual(CAP + 10);
      for (const socket of sockets.splice(0)) socket.destroy();

      const counted = await eventually(
        () => dropped(listener),
        (count) => count - before >= 10,
        { timeoutMs: 10_000, what: 'dropped connections counted' },
      );
      expect(counted - before).toBeGreaterThanOrEqual(flood.closedByServer());
      const health = await eventually(
        () => httpRequest(`${h.baseUrl}/health`).then((r) => r.status),
        (status) => status === 200,
        { timeoutMs: 10_000, what: 'the HTTP API answering' },
      );
      expect(health).toBe(200);
      expect(await addBatchOverGrpc()).toBe('0');
    },
  );

  it('connected clients go on while the listener refuses new ones', async () => {
    const session = grpcSession(h.service.services.boundPorts.get('grpc')!);
    try {
      await new Promise<void>((resolve) => session.once('connect', () => resolve()));
      const flood = silentConnections(h.service.services.boundPorts.get('grpc')!, CAP + 10);
      await eventually(
        async () => flood.closedByServer(),
        (closed) => closed >= 10,
        { timeoutMs: 10_000, what: 'connections closed by the server' },
      );
      expect(await addOneLogEvent(session, token, unique('cap-kept-'))).toBe('0');
    } finally {
      session.destroy();
    }
  });
});

describe('the operations listener (OPS_PORT)', () => {
  it('answers /health, /ready and /metrics while the API listener is full', async () => {
    const apiPort = Number(new URL(h.baseUrl).port);
    const before = await dropped('http');
    const flood = silentConnections(apiPort, CAP + 10);
    await eventually(
      async () => flood.closedByServer(),
      (closed) => closed >= 10,
      { timeoutMs: 10_000, what: 'API connections closed by the server' },
    );
    // A new connection to the API, its /health included, is closed unanswered meanwhile: that is what the
    // listener of its own is for.
    expect(await answerOnNewConnection(apiPort, '/health')).toBe('');

    expect((await httpRequest(opsUrl('/health'))).status).toBe(200);
    const ready = await httpRequest(opsUrl('/ready'));
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toMatchObject({ ready: true });
    expect((await dropped('http', opsUrl(''))) - before).toBeGreaterThanOrEqual(10);
    const other = await httpRequest(opsUrl('/v2.23/events.add_batch'), { method: 'POST', body: '' });
    expect(other.status).toBe(404);
  });

  it('holds at most OPS_MAX_CONNECTIONS of its own; the API goes on meanwhile', async () => {
    const flood = silentConnections(h.service.services.boundPorts.get('ops')!, OPS_CAP + 10);
    await eventually(
      async () => flood.closedByServer(),
      (closed) => closed >= 10,
      { timeoutMs: 10_000, what: 'operations connections closed by the server' },
    );
    expect(flood.closedByServer()).toBeLessThanOrEqual(OPS_CAP + 10);
    expect((await httpRequest(`${h.baseUrl}/health`)).status).toBe(200);
    expect(await addBatchOverGrpc()).toBe('0');
    expect(await dropped('ops')).toBeGreaterThanOrEqual(10);
  });
});
