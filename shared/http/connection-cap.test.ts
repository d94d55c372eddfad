import { createServer, connect, type Socket } from 'node:net';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ConnectionCap, connectionCapFor, openFileLimit, RESERVED_DESCRIPTORS } from './connection-cap.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             96363                96363                processes
Max open files            20000                524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('connectionCapFor', () => {
  it('keeps the configured number where the open-file limit holds both listeners full and the reserve', () => {
    expect(connectionCapFor(10_000, 2 * 10_000 + RESERVED_DESCRIPTORS)).toBe(10_000);
    expect(connectionCapFor(10_000, 1_048_576)).toBe(10_000);
    expect(connectionCapFor(10_000, undefined)).toBe(10_000);
  });

  it('lowers it to what the open-file limit leaves each listener after the reserve', () => {
    expect(connectionCapFor(10_000, 20_000)).toBe(Math.floor((20_000 - RESERVED_DESCRIPTORS) / 2));
    expect(connectionCapFor(10_000, 1_024)).toBe(256);
  });

  it("takes the operations listener's connections off the limit before sharing it", () => {
    expect(connectionCapFor(10_000, 20_000, 64)).toBe(Math.floor((20_000 - RESERVED_DESCRIPTORS - 64) / 2));
    expect(connectionCapFor(10_000, 2 * 10_000 + RESERVED_DESCRIPTORS + 64, 64)).toBe(10_000);
  });

  it('leaves each listener one connection however low the limit', () => {
    expect(connectionCapFor(10_000, 100)).toBe(1);
  });
});

describe('openFileLimit', () => {
  it("reads the soft limit from the process's limits", () => {
    expect(openFileLimit(LIMITS)).toBe(20_000);
  });

  it('is unknown when unlimited or not told', () => {
    expect(openFileLimit(LIMITS.replace('20000', 'unlimited'))).toBeUndefined();
    expect(openFileLimit('')).toBeUndefined();
  });
});

describe('ConnectionCap', () => {
  it('closes connections beyond the cap as soon as accepted and counts them; open ones are a gauge', async () => {
    const registry = new Registry();
    const server = createServer(() => undefined);
    new ConnectionCap(2, registry).apply(server, 'http');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1', () => resolve(socket));
      });
    const kept = [await open(), await open()];
    const third = await open();
    await new Promise((resolve) => third.once('close', resolve));
    const text = await registry.metrics();
    expect(text).toContain('clearml_connections_dropped_total{listener="http"} 1');
    expect(text).toContain('clearml_connections_open{listener="http"} 2');
    for (const socket of kept) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
