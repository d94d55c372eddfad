/**
 * The importer of ClearML's Elasticsearch events export
 * (deploy/clearml-es-import, docs/clearml-companion.md "Moving existing
 * events"): a generated export in elasticdump's format (one hit per line:
 * `_index` `events-<type>-<company>`, `_id`, `_source` as
 * allegroai/clearml-server apiserver/bll/event/event_bll.py stores it), with
 * a saved search page, another company's documents and a compressed plot,
 * imported into a running service; an outage in the middle stops the run,
 * the next run continues where it stopped without sending a log line twice,
 * and a finished import run again sends nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventsApi, TransientFailure } from '../../deploy/clearml-es-import/events-api.js';
import { importEsExport } from '../../deploy/clearml-es-import/es-import.js';
import { main } from '../../deploy/clearml-es-import/import-cli.js';
import { eventually } from '../harness/eventually.js';
import { type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';

let f: ServiceFixture;
const task = unique('es-task-');
const model = unique('es-model-');
const SCALARS = 120;
const LOGS = 30;
const BIG_FIGURE = JSON.stringify({
  data: [{ x: Array.from({ length: 50 }, (_, i) => i), y: Array.from({ length: 50 }, (_, i) => i * i) }],
  layout: { title: 'big' },
});

function exportFile(company: string): string {
  const index = (type: string, c = company) => `events-${type}-${c.toLowerCase()}`;
  const stored = (type: string, source: object) => ({
    '@timestamp': '2024-06-10T06:13:20.200Z',
    company_id: company,
    task,
    type,
    worker: 'gpu-7',
    model_event: false,
    metric: '',
    variant: '',
    timestamp: 1718000000000,
    ...source,
  });
  const hit = (type: string, source: object, c = company) => ({
    _index: index(type, c),
    _type: '_doc',
    _id: unique(''),
    _score: 1,
    _source: stored(type, source),
  });
  const lines: unknown[] = [];
  for (let iter = 0; iter < SCALARS; iter++)
    lines.push(
      hit('training_stats_scalar', {
        iter,
        metric: 'loss',
        variant: 'train',
        value: iter / 100,
        timestamp: 1718000000000 + iter,
      }),
    );
  for (let i = 0; i < LOGS; i++)
    lines.push(hit('log', { msg: `log line ${i}`, level: 'info', timestamp: 1718000100000 + i }));
  lines.push(hit('training_stats_vector', { iter: 1, metric: 'weights', variant: 'l1', value: [0.1, 0.2, 0.3] }));
  lines.push(
    hit('training_debug_image', {
      iter: 1,
      metric: 'samples',
      variant: 'input',
      key: 'k1',
      url: 'https://files.example/k1.jpg',
    }),
  );
  lines.push(hit('plot', { iter: 1, metric: 'roc', variant: 'v', plot_str: '{"data": []}', plot_len: 12 }));
  lines.push(
    hit('plot', {
      iter: 2,
      metric: 'roc',
      variant: 'v',
      plot_data: deflateSync(Buffer.from(BIG_FIGURE), { level: 1 }).toString('base64'),
      plot_len: BIG_FIGURE.length,
    }),
  );
  lines.push(
    hit('training_stats_scalar', {
      task: model,
      model_event: true,
      iter: 1,
      metric: 'loss',
      variant: 'train',
      value: 2,
    }),
  );
  lines.push(hit('log', { msg: 'another company' }, 'someone-else'));
  // A saved scroll page (jq -c of a _search answer) holds three more scalars.
  lines.push({
    _scroll_id: 'abc',
    hits: {
      total: { value: 3 },
      hits: [0, 1, 2].map((i) => hit('training_stats_scalar', { iter: i, metric: 'acc', variant: 'val', value: i })),
    },
  });
  const text = ['', ...lines.map((l) => JSON.stringify(l)), 'not json', ''].join('\n');
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'es-export-')), 'events.ndjson');
  writeFileSync(file, text);
  return file;
}

/** Forwards to the service until `failAfter` add_batch calls went through, then answers 503 to every call. */
class FlakyProxy {
  private server?: Server;
  batches = 0;
  failAfter = Infinity;

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.url?.includes('events.add_batch')) {
        if (this.batches >= this.failAfter) {
          res.writeHead(503, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              meta: { result_code: 503, result_subcode: 0, result_msg: 'down for a moment' },
              data: {},
            }),
          );
          return;
        }
        this.batches++;
      }
      const answer = await fetch(`${this.target}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let proxy: FlakyProxy;
let proxyUrl: string;

beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
  proxy = new FlakyProxy(f.h.baseUrl);
  proxyUrl = await proxy.start();
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  await f?.stop();
});

const apiAt = (url: string) =>
  new EventsApi({
    url,
    accessKey: f.h.credentials.a.access_key,
    secretKey: f.h.credentials.a.secret_key,
    attempts: 2,
    retryDelayMs: 10,
  });

describe('import of an Elasticsearch events export', () => {
  it('stops at an outage, resumes where it stopped, stores every event of the company once, and does nothing more once done', async () => {
    const file = exportFile(f.company('a'));
    const statePath = `${file}.import-state.json`;
    // Batches of 25: the fifth holds the last scalars and the first log lines, the sixth fails.
    proxy.failAfter = 5;
    const stopped = await importEsExport({ file, api: apiAt(proxyUrl), statePath, batchEvents: 25 }).catch(
      (error: unknown) => error,
    );
    expect(stopped).toBeInstanceOf(TransientFailure);
    const saved = JSON.parse(readFileSync(statePath, 'utf8'));
    expect(saved).toMatchObject({ done: false, added: 125 });
    expect(saved.offset).toBeGreaterThan(0);
    expect(saved.offset).toBeLessThan(saved.file.size);

    const state = await importEsExport({ file, api: apiAt(f.h.baseUrl), statePath, batchEvents: 25 });
    expect(state).toMatchObject({ done: true, added: SCALARS + LOGS + 1 + 1 + 2 + 1 + 3, refused: {} });
    expect(state.documents).toBe(SCALARS + LOGS + 6 + 3);
    expect(state.skipped).toEqual({ 'another company (someone-else)': 1, 'line that is not JSON': 1 });

    const log = await eventually(
      () => f.data('events.get_task_log', { task, batch_size: 500 }),
      (d) => d.total >= LOGS,
    );
    expect(log.total).toBe(LOGS);
    expect(new Set(log.events.map((e: any) => e.msg)).size).toBe(LOGS);
    const scalars = await eventually(
      () => f.data('events.scalar_metrics_iter_histogram', { task, key: 'iter', samples: 1000 }),
      (d) => d.loss?.train?.x?.length === SCALARS && d.acc !== undefined,
    );
    expect(scalars.loss.train.x).toHaveLength(SCALARS);
    expect(scalars.acc.val.y).toEqual([0, 1, 2]);
    const plots = await eventually(
      () => f.data('events.get_task_plots', { task, iters: 2 }),
      (d) => d.plots.length === 2,
    );
    expect(plots.plots.find((p: any) => p.iter === 2).plot_str).toBe(BIG_FIGURE);
    const image = await f.data('events.get_debug_image_sample', { task, metric: 'samples', variant: 'input' });
    expect(image.event).toMatchObject({ url: 'https://files.example/k1.jpg', key: 'k1', iter: 1 });
    const vector = await f.data('events.vector_metrics_iter_histogram', { task, metric: 'weights', variant: 'l1' });
    expect(vector).toMatchObject({ vectors: [[0.1, 0.2, 0.3]], iterations: [1] });
    const modelScalars = await eventually(
      () => f.data('events.scalar_metrics_iter_histogram', { task: model, model_events: true }),
      (d) => d.loss !== undefined,
    );
    expect(modelScalars.loss.train.y).toEqual([2]);

    const before = proxy.batches;
    proxy.failAfter = Infinity;
    const again = await importEsExport({ file, api: apiAt(proxyUrl), statePath, batchEvents: 25 });
    expect(again).toEqual(state);
    expect(proxy.batches).toBe(before);
  });

  it('runs as npm run import:clearml-es does (credentials and URL from the environment), and refuses to run without credentials', async () => {
    const file = exportFile(f.company('a'));
    const env = {
      CLEARML_API_HOST: f.h.baseUrl,
      CLEARML_API_ACCESS_KEY: f.h.credentials.a.access_key,
      CLEARML_API_SECRET_KEY: f.h.credentials.a.secret_key,
    };
    expect(await main([file, '--batch-events', '40'], env)).toBe(0);
    expect(JSON.parse(readFileSync(`${file}.import-state.json`, 'utf8'))).toMatchObject({ done: true, refused: {} });
    expect(await main([file], { CLEARML_API_HOST: f.h.baseUrl })).toBe(2);
    expect(await main([file, '--batch-events', 'many'], env)).toBe(2);
  });

  it('imports again from the start with restart, replacing every event with an identity (logs have none)', async () => {
    const file = exportFile(f.company('a'));
    const statePath = `${file}.import-state.json`;
    await importEsExport({ file, api: apiAt(f.h.baseUrl), statePath });
    const state = await importEsExport({ file, api: apiAt(f.h.baseUrl), statePath, restart: true });
    expect(state.added).toBe(SCALARS + LOGS + 1 + 1 + 2 + 1 + 3);
    const scalars = await eventually(
      () => f.data('events.scalar_metrics_iter_histogram', { task, key: 'iter', samples: 1000 }),
      (d) => d.loss?.train?.x?.length === SCALARS,
    );
    expect(scalars.loss.train.y).toHaveLength(SCALARS);
    const plots = await f.data('events.get_task_plots', { task, iters: 2 });
    expect(plots.plots).toHaveLength(2);
  });
});
