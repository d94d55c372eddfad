// An InfluxDB call is limited until its whole answer is read (influx-call-limit.ts): an answer that
// stops coming half-way fails the call as a store failure (503) at INFLUX_TIMEOUT_MS, and a caller
// that goes away half-way (client gone) ends the call as an abort, which is no store failure. The
// connection is let go either way. A proxy in front of the real InfluxDB passes the first bytes of
// each answer on and then holds the rest, as a host that stalls mid-answer would.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject, describe, expect, it } from 'vitest';
import { InfluxCsvReader } from '../../query/events/store/influx-csv.js';
import { Registry } from '../../shared/observability/metrics.js';
import { createStoreCalls, type StoreCalls } from '../../shared/stores/store-calls.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { isTransientStoreError, StoreUnavailableError } from '../../shared/stores/store-errors.js';
import { unique } from '../harness/service-harness.js';

const FIRST_BYTES = 1_000;
const POINTS = 5_000;

interface StallingProxy {
  url: string;
  /** Resolves when the next answer's first bytes were sent. */
  firstBytesSent(): Promise<void>;
  /** Resolves when the next held answer's connection was closed by the caller. */
  callerLeft(): Promise<void>;
  close(): void;
}

async function stallingProxy(upstream: string): Promise<StallingProxy> {
  let sent: () => void = () => undefined;
  let left: () => void = () => undefined;
  let sentNow = new Promise<void>((resolve) => (sent = resolve));
  let leftNow = new Promise<void>((resolve) => (left = resolve));
  const held = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    void (async () => {
      const answer = Buffer.from(
        await (
          await fetch(`${upstream}${request.url}`, { headers: { accept: request.headers.accept ?? '*/*' } })
        ).arrayBuffer(),
      );
      expect(answer.length).toBeGreaterThan(FIRST_BYTES);
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(answer.length) });
      held.add(response);
      response.once('close', () => {
        held.delete(response);
        left();
        leftNow = new Promise<void>((resolve) => (left = resolve));
      });
      response.write(answer.subarray(0, FIRST_BYTES), () => {
        sent();
        sentNow = new Promise<void>((resolve) => (sent = resolve));
      });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstBytesSent: () => sentNow,
    callerLeft: () => leftNow,
    close: () => {
      for (const response of held) response.destroy();
      server.close();
    },
  };
}

async function errorsOf(registry: Registry): Promise<Array<{ operation: unknown; value: number }>> {
  const metric = await registry.getSingleMetric('clearml_store_call_errors_total')!.get();
  return metric.values.map(({ labels, value }) => ({ operation: labels.operation, value }));
}

/** Both readers of InfluxDB answers: the JSON one (InfluxStore) and the streamed CSV one. */
function readers(url: string, database: string, timeoutMs: number, calls: StoreCalls) {
  const json = new InfluxStore({ url, database, timeoutMs, calls });
  const csv = new InfluxCsvReader({ INFLUX_URL: url, INFLUX_DB: database, INFLUX_TIMEOUT_MS: timeoutMs }, calls);
  return [
    { operation: 'query', read: (signal?: AbortSignal) => json.query('SELECT * FROM "scalar"', { signal }) },
    {
      operation: 'query_csv',
      read: (signal?: AbortSignal) => csv.columns('SELECT "y" FROM "scalar"', ['y'], [], signal),
    },
  ];
}

describe('an InfluxDB answer that stops half-way', () => {
  it('fails the call as a store failure at INFLUX_TIMEOUT_MS, or ends it as an abort when the caller leaves', async () => {
    const database = unique('limit');
    const influx = new InfluxStore({ url: inject('stack').influxUrl, database });
    await influx.ensureDatabase();
    const proxy = await stallingProxy(inject('stack').influxUrl);
    try {
      let body = '';
      for (let i = 0; i < POINTS; i++) body += `scalar,v=v${i % 10} y=${Math.sin(i)} ${i}\n`;
      await influx.write(body);

      const registry = new Registry();
      for (const { operation, read } of readers(proxy.url, database, 400, createStoreCalls(registry))) {
        const left = proxy.callerLeft();
        const started = performance.now();
        const error = await read().then(
          () => new Error('a held answer was returned'),
          (e: unknown) => e,
        );
        expect(error, operation).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toBe('InfluxDB did not answer within 400 ms (INFLUX_TIMEOUT_MS)');
        expect(isTransientStoreError(error)).toBe(true);
        expect(performance.now() - started).toBeGreaterThanOrEqual(399);
        await left;
      }
      expect(await errorsOf(registry)).toEqual([
        { operation: 'query', value: 1 },
        { operation: 'query_csv', value: 1 },
      ]);

      const quiet = new Registry();
      for (const { operation, read } of readers(proxy.url, database, 30_000, createStoreCalls(quiet))) {
        const caller = new AbortController();
        const firstBytes = proxy.firstBytesSent();
        const left = proxy.callerLeft();
        const reading = read(caller.signal).then(
          () => new Error('a held answer was returned'),
          (e: unknown) => e,
        );
        await firstBytes;
        caller.abort();
        const error = (await reading) as Error;
        expect(error.name, `${operation}: ${String(error)}`).toBe('AbortError');
        await left;
      }
      // The caller's abort is no store failure.
      expect(await errorsOf(quiet)).toEqual([
        { operation: 'query', value: 0 },
        { operation: 'query_csv', value: 0 },
      ]);
    } finally {
      proxy.close();
      await influx.query(`DROP DATABASE "${database}"`, { method: 'POST' });
    }
  });
});
