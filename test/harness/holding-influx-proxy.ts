/**
 * A proxy in front of the real InfluxDB that holds chosen calls until
 * released, as a store slowed down by other work would: queries whose text
 * names one of `markers`, and with `holdWrites` every write (the writers'
 * line protocol), each held under the marker `write`; `trickleWrites` lets
 * the held writes through one at a time, as an InfluxDB slower than the
 * writers' load.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HoldingProxy {
  url: string;
  /** Queries whose text has one of these are held until `release` (none while empty). */
  markers: string[];
  /** Writes are held until `release` while set. */
  holdWrites: boolean;
  /** The markers of the calls held now, in arrival order. */
  readonly held: string[];
  /** Holds writes and passes the oldest held one on every `everyMs`. */
  trickleWrites(everyMs: number): void;
  /** Stops holding and passes on every call held. */
  release(): void;
  close(): Promise<void>;
}

export async function holdingProxy(upstream: string): Promise<HoldingProxy> {
  const waiting: Array<{ marker: string; forward: () => void }> = [];
  let trickle: NodeJS.Timeout | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = () => {
        const onward = httpRequest(
          `${upstream}${request.url}`,
          { method: request.method, headers: { ...request.headers, host: new URL(upstream).host } },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
          },
        );
        onward.on('error', () => response.destroy());
        onward.end(body);
      };
      const text = `${request.url}${body.toString('latin1')}`;
      const marker = request.url?.startsWith('/query')
        ? proxy.markers.find((m) => text.includes(m))
        : request.url?.startsWith('/write') && proxy.holdWrites
          ? 'write'
          : undefined;
      if (marker !== undefined) waiting.push({ marker, forward });
      else forward();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: HoldingProxy = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    markers: [],
    holdWrites: false,
    get held() {
      return waiting.map((w) => w.marker);
    },
    trickleWrites(everyMs) {
      proxy.holdWrites = true;
      clearInterval(trickle);
      trickle = setInterval(() => {
        const next = waiting.findIndex((w) => w.marker === 'write');
        if (next >= 0) waiting.splice(next, 1)[0]!.forward();
      }, everyMs);
    },
    release() {
      clearInterval(trickle);
      proxy.markers = [];
      proxy.holdWrites = false;
      for (const { forward } of waiting.splice(0)) forward();
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
