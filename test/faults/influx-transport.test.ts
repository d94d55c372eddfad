// The InfluxDB calls' transport (shared/stores/influx-http.ts): connections kept between calls, and
// every way a call can fail on the connection classified transient (503 for reads, retried by the writer).
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { isTransientStoreError, StoreUnavailableError } from '../../shared/stores/store-errors.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A TCP server on a free port; `onSocket` decides what each connection gets. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  };
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

/** A pass-through to the stack's InfluxDB, counting the connections made to it. */
function passThrough(target: string) {
  const { hostname, port } = new URL(target);
  return tcpServer((socket) => {
    const upstream = new Socket();
    upstream.on('error', () => socket.destroy());
    upstream.connect(Number(port), hostname, () => {
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    socket.on('close', () => upstream.destroy());
  });
}

const store = (url: string, timeoutMs = 5_000) => new InfluxStore({ url, database: 'transport_test', timeoutMs });

/** What a call failed with (undefined if it did not). */
const failureOf = (call: Promise<unknown>): Promise<unknown> =>
  call.then(
    () => undefined,
    (e: unknown) => e,
  );

/** A query to `url` with a 300 ms timeout fails as a timeout (transient) well before 3 s. */
async function expectGivenUpAtTimeout(url: string): Promise<void> {
  const started = performance.now();
  const error = await failureOf(store(url, 300).query('SHOW DATABASES'));
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect(isTransientStoreError(error)).toBe(true);
  expect(performance.now() - started).toBeLessThan(3_000);
}

describe('InfluxDB transport', () => {
  it('keeps its connections between calls: 30 queries and a write in a row go over at most two', async () => {
    const proxy = await passThrough(inject('stack').influxUrl);
    const influx = store(proxy.url);
    for (let i = 0; i < 30; i++) await influx.query('SHOW DATABASES');
    // A write InfluxDB refuses (no such database) leaves the connection open too.
    await expect(influx.write(`transport_probe v=1 ${Date.now()}000000`)).rejects.toThrow(/database not found/);
    await influx.query('SHOW DATABASES');
    // The second call opens a second connection (observed with fetch as with undici: the first
    // connection is not free again yet when the next call starts); from then on they are reused.
    expect(proxy.connections()).toBeLessThanOrEqual(2);
  });

  it('answers a refused connection as transient', async () => {
    const closed = await tcpServer(() => undefined);
    const url = closed.url;
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = await failureOf(store(url).query('SHOW DATABASES'));
    expect(error).toBeInstanceOf(Error);
    expect(isTransientStoreError(error)).toBe(true);
  });

  it('answers a connection cut in the middle of an answer as transient, for queries and writes', async () => {
    const cutting = await tcpServer((socket) =>
      socket.once('data', () =>
        socket.end(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"results":[',
          () => socket.destroy(),
        ),
      ),
    );
    for (const call of [() => store(cutting.url).query('SHOW DATABASES'), () => store(cutting.url).write('m v=1 1')]) {
      const error = await failureOf(call());
      expect(error).toBeInstanceOf(Error);
      expect(isTransientStoreError(error)).toBe(true);
    }
  });

  it('gives up on an answer that stops in the middle within the call timeout, as transient', async () => {
    const stalling = await tcpServer((socket) =>
      socket.once('data', () =>
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nc\r\n{"results":[\r\n',
        ),
      ),
    );
    await expectGivenUpAtTimeout(stalling.url);
  });

  it('gives up on a server that never answers within the call timeout, as transient', async () => {
    await expectGivenUpAtTimeout((await tcpServer(() => undefined)).url);
  });
});
