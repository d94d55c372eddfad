// What nginx (the shipped deploy/reverse-proxy/nginx.conf, as `npm run start:cluster` renders it)
// does when a service process dies (issue 12, item 4; docs/scaling.md "What the proxy retries"):
// a process that refuses connections is skipped for every call; a read whose process died while
// holding it is passed to another process, so a client sees its answer and no error; a write, or a
// read that moves a cursor kept in Redis, that reached a process is never sent twice by nginx (the
// client decides: the SDK re-sends add_batch, which the ingest de-duplicates by message id). Every
// operation the service registers is in one of the lists.
// Fake service processes stand in for the real ones: one answers, one dies holding every request
// (reads the request, then drops the connection without an answer, as a process killed by -9 does),
// or listens nowhere (refused).
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startNginx } from '../../deploy/cluster-stack/nginx-proxy.js';
import { findFreePort } from '../../deploy/local-stack/free-port.js';
import { ensureDebianPackages, findBinary } from '../../deploy/local-stack/install-packages.js';
import type { SupervisedServer } from '../../deploy/local-stack/supervised-server.js';
import { registeredOperations } from '../fuzz/operation-catalogue.js';

type Behaviour = 'answers' | 'dies' | 'refuses';

interface FakeProcess {
  address: string;
  /** The request ids (x-request-id) it received, in order. */
  received: string[];
  close(): Promise<void>;
}

async function fakeProcess(behaviour: Behaviour): Promise<FakeProcess> {
  const port = await findFreePort();
  const received: string[] = [];
  if (behaviour === 'refuses') return { address: `127.0.0.1:${port}`, received, close: async () => {} };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      // Only the test's calls count (and die): not nginx's readiness probe (GET /health) at start.
      const id = request.headers['x-request-id'];
      if (typeof id === 'string') received.push(id);
      if (behaviour === 'dies' && typeof id === 'string') request.socket.destroy();
      else
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ meta: { result_code: 200 }, data: { bytes: Buffer.concat(chunks).length } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface Proxy {
  baseUrl: string;
  ingest: FakeProcess[];
  query: FakeProcess[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** nginx with the shipped config in front of fake ingest and query processes (second one of each answers). */
async function startProxy(first: Behaviour): Promise<Proxy> {
  await ensureDebianPackages(() => {}, [{ name: 'nginx', present: () => findBinary('nginx') !== undefined }]);
  const ingest = [await fakeProcess(first), await fakeProcess('answers')];
  const query = [await fakeProcess(first), await fakeProcess('answers')];
  cleanups.push(async () => {
    await Promise.all([...ingest, ...query].map((p) => p.close()));
  });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-proxy-retry-'));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const apiPort = await findFreePort();
  const nginx: SupervisedServer = await startNginx({
    binary: findBinary('nginx')!,
    dataDir,
    values: {
      listenHost: '127.0.0.1',
      apiPort,
      grpcPort: await findFreePort(),
      ingestHttp: ingest.map((p) => p.address),
      ingestGrpc: ingest.map((p) => p.address),
      queryHttp: query.map((p) => p.address),
    },
    context: { timeoutMs: 30_000, restartOnExit: false, log: () => {}, onSpawned: () => {} },
  });
  cleanups.push(() => nginx.stop());
  return { baseUrl: `http://127.0.0.1:${apiPort}`, ingest, query };
}

let sequence = 0;

async function post(
  proxy: Proxy,
  operation: string,
  body: string,
  contentType = 'application/json',
): Promise<{ id: string; status: number }> {
  const id = `r${++sequence}`;
  const response = await fetch(`${proxy.baseUrl}/v2.23/${operation}`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-request-id': id },
    body,
  });
  await response.arrayBuffer();
  return { id, status: response.status };
}

/** Calls until the first (dying) process has received one of them; answers every call made. */
async function callUntilFirstHit(
  proxy: Proxy,
  first: FakeProcess,
  call: () => Promise<{ id: string; status: number }>,
) {
  const calls: Array<{ id: string; status: number }> = [];
  while (first.received.length === 0 && calls.length < 10) calls.push(await call());
  expect(first.received, 'nginx never sent a call to the first process').toHaveLength(1);
  return calls;
}

/** Query operations nginx sends to another process when the one holding them died. */
const RETRIED = [
  'auth.login',
  'events.clear_scroll',
  'events.download_task_log',
  'events.get_debug_image_sample',
  'events.get_multi_task_metrics',
  'events.get_multi_task_plots',
  'events.get_plot_sample',
  'events.get_scalar_metric_data',
  'events.get_scalar_metrics_and_variants',
  'events.get_task_events',
  'events.get_task_latest_scalar_values',
  'events.get_task_log',
  'events.get_task_metrics',
  'events.get_task_plots',
  'events.get_task_single_value_metrics',
  'events.get_vector_metrics_and_variants',
  'events.multi_task_scalar_metrics_iter_histogram',
  'events.scalar_metrics_iter_histogram',
  'events.scalar_metrics_iter_raw',
  'events.vector_metrics_iter_histogram',
  'reports.get_tags',
];
/** Query operations nginx never sends twice: writes, and reads that move a cursor kept in Redis. */
const NOT_REPEATED = [
  'events.clear_task_log',
  'events.debug_images',
  'events.delete_for_model',
  'events.delete_for_task',
  'events.next_debug_image_sample',
  'events.next_plot_sample',
  'events.plots',
  'reports.archive',
  'reports.create',
  'reports.delete',
  'reports.get_all_ex',
  'reports.get_task_data',
  'reports.move',
  'reports.publish',
  'reports.unarchive',
  'reports.update',
];
/** Ingest operations: bodies streamed, never sent twice by nginx. */
const INGEST = ['events.add', 'events.add_batch'];

describe('nginx in front of the service processes', { timeout: 60_000 }, () => {
  it('has every operation of the service in one of the lists', () => {
    expect([...RETRIED, ...NOT_REPEATED, ...INGEST].sort()).toEqual(
      [...new Set(registeredOperations().map((o) => o.name))].sort(),
    );
  });

  it.each(RETRIED)(
    'passes %s, held by a process that died, to another one: the client gets its answer',
    async (operation) => {
      const proxy = await startProxy('dies');
      const calls = await callUntilFirstHit(proxy, proxy.query[0]!, () =>
        post(proxy, operation, JSON.stringify({ task: 't' })),
      );
      expect(calls.map((c) => c.status)).toEqual(calls.map(() => 200));
      // The call the dying process held was answered by the other one.
      expect(proxy.query[1]!.received).toContain(proxy.query[0]!.received[0]);
    },
  );

  it.each(NOT_REPEATED)(
    'never sends %s a second time once it reached a process: the client gets 502',
    async (operation) => {
      const proxy = await startProxy('dies');
      const calls = await callUntilFirstHit(proxy, proxy.query[0]!, () =>
        post(proxy, operation, JSON.stringify({ task: 't' })),
      );
      const held = calls.find((c) => c.id === proxy.query[0]!.received[0])!;
      expect(held.status).toBe(502);
      expect(proxy.query[1]!.received).not.toContain(held.id);
    },
  );

  it.each(INGEST)(
    'never sends %s a second time once it reached an ingest process (its body is streamed): the client re-sends it',
    async (operation) => {
      const proxy = await startProxy('dies');
      const lines = Array.from({ length: 50 }, (_, i) =>
        JSON.stringify({ type: 'log', task: 't', iter: i, msg: `line ${i}` }),
      ).join('\n');
      const calls = await callUntilFirstHit(proxy, proxy.ingest[0]!, () =>
        post(proxy, operation, lines, 'application/json-lines'),
      );
      const held = calls.find((c) => c.id === proxy.ingest[0]!.received[0])!;
      expect(held.status).toBe(502);
      expect(proxy.ingest[1]!.received).not.toContain(held.id);
    },
  );

  it('sends every call, reads, writes and events.add_batch, to the process that listens when the other refuses connections', async () => {
    const proxy = await startProxy('refuses');
    const calls = [];
    for (let i = 0; i < 4; i++) {
      calls.push(await post(proxy, 'events.get_task_events', JSON.stringify({ task: 't' })));
      calls.push(await post(proxy, 'reports.create', JSON.stringify({ name: `r${i}` })));
      calls.push(
        await post(
          proxy,
          'events.add_batch',
          JSON.stringify({ type: 'log', task: 't', iter: i, msg: 'x' }),
          'application/json-lines',
        ),
      );
    }
    expect(calls.map((c) => c.status)).toEqual(calls.map(() => 200));
    expect(proxy.query[1]!.received).toHaveLength(8);
    expect(proxy.ingest[1]!.received).toHaveLength(4);
  });
});
