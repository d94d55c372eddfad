// Query processes are interchangeable (issue 12, item 5): a scroll or a navigation started on one
// query process continues on another, page by page, with the same pages as on one process. Two
// query processes (the built launcher's `query` target, child processes with their own DATA_DIR,
// sharing AUTH_SECRET and the stores, as in the cluster shape); every operation that carries
// scroll or navigation state (events.md §4, §5, §6, §7, §8, §10; reports.md §4.9) is paged on
// one process, then alternating between the two.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../deploy/local-stack/free-port.js';
import { ServiceProcess } from '../faults/service-process.js';
import {
  apiCaller,
  loginThrough,
  startHarness,
  unique,
  type CallResult,
  type Harness,
} from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';
import { ndjson } from '../harness/event-builders.js';

let h: Harness;
let dataDir: string;
const queries: ServiceProcess[] = [];
let callers: Array<ReturnType<typeof apiCaller>>;
let token: string;
let tokenB: string;

const task = unique('qi-');
const tag = unique('qi-tag-');
const T0 = 1_718_000_000_000;

beforeAll(async () => {
  // Every process of a deployment signs tokens and cursors with the one secret (docs/configuration.md).
  h = await startHarness({ target: 'all', env: { AUTH_SECRET: randomBytes(36).toString('base64url') } });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-queries-'));
  for (const name of ['q1', 'q2']) {
    const port = await findFreePort();
    const env = {
      ...h.env,
      PATH: process.env.PATH ?? '',
      API_PORT: String(port),
      GRPC_PORT: String(await findFreePort()),
      DATA_DIR: path.join(dataDir, name),
    };
    queries.push(new ServiceProcess('query', `http://127.0.0.1:${port}`, env, path.join(dataDir, name, 'logs')));
  }
  await Promise.all(queries.map((q) => q.start()));
  callers = queries.map((q) => apiCaller(q.baseUrl));
  token = await loginThrough(callers[0]!, h.credentials.a);
  tokenB = await loginThrough(callers[1]!, h.credentials.b);

  const events = [
    ...Array.from({ length: 30 }, (_, i) => ({
      type: 'training_stats_scalar',
      task,
      iter: i,
      timestamp: T0 + i,
      metric: 'loss',
      variant: 'v',
      value: i / 10,
    })),
    ...Array.from({ length: 12 }, (_, i) => ({
      type: 'log',
      task,
      timestamp: T0 + i,
      level: 'info',
      msg: `line ${i}`,
    })),
    ...Array.from({ length: 6 }, (_, i) =>
      ['v1', 'v2'].map((variant) => ({
        type: 'plot',
        task,
        iter: i,
        timestamp: T0 + i,
        metric: 'M1',
        variant,
        plot_str: `{"at": ${i}}`,
      })),
    ).flat(),
    ...Array.from({ length: 6 }, (_, i) => ({
      type: 'plot',
      task,
      iter: i,
      timestamp: T0 + i,
      metric: 'M2',
      variant: 'v3',
      plot_str: `{"m2": ${i}}`,
    })),
    ...Array.from({ length: 6 }, (_, i) => ({
      type: 'training_debug_image',
      task,
      iter: i,
      timestamp: T0 + i,
      metric: 'samples',
      variant: 'input',
      url: `https://files/img_${i}.jpg`,
    })),
  ];
  const writeToken = await h.login(h.credentials.a);
  const added = await h.call('events.add_batch', undefined, {
    token: writeToken,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: ndjson(events),
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  for (let i = 0; i < 11; i++)
    expect(
      (
        await h.call(
          'reports.create',
          { name: `paged ${String(i).padStart(2, '0')}`, tags: [tag] },
          { token: writeToken },
        )
      ).status,
    ).toBe(200);
  await eventually(
    () => h.call('events.get_task_events', { task, batch_size: 1000 }, { token: writeToken }),
    (all) => all.body?.data?.total === events.length,
    { timeoutMs: 30_000, everyMs: 200, what: 'events stored' },
  );
}, 180_000);
afterAll(async () => {
  await Promise.all(queries.map((q) => q.stop()));
  await h?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** The data of a 200 answer of process `p`. */
async function data(p: number, operation: string, body: object, as = token): Promise<any> {
  const answer: CallResult = await callers[p]!(operation, body, { token: as });
  if (answer.status !== 200)
    throw new Error(`${operation} on q${p + 1} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.data;
}

interface Paging {
  operation: string;
  first: object;
  /** The next request after a page; undefined when the page was the last. */
  next(page: any, first: any): object | undefined;
  /** The continuation's operation when it is another one (next_*_sample). */
  nextOperation?: string;
}

/** Every page of a paging, each call made on the process `on(i)` chooses; scroll ids left out (a navigation's is random). */
async function pages(paging: Paging, on: (call: number) => number): Promise<unknown[]> {
  const out: unknown[] = [];
  const first = await data(on(0), paging.operation, paging.first);
  let page = first;
  for (let i = 1; ; i++) {
    out.push({ ...page, scroll_id: undefined });
    const body = paging.next(page, first);
    if (body === undefined) return out;
    if (i > 50) throw new Error(`${paging.operation}: more than 50 pages`);
    page = await data(on(i), paging.nextOperation ?? paging.operation, body);
  }
}

const scrolling = (
  operation: string,
  first: object,
  items: (page: any) => unknown[] | Record<string, unknown>,
): Paging => ({
  operation,
  first,
  next: (page) => {
    const list = items(page);
    return (Array.isArray(list) ? list.length : Object.keys(list).length) === 0
      ? undefined
      : { ...first, scroll_id: page.scroll_id };
  },
});

const PAGINGS: Record<string, Paging> = {
  'events.get_task_events': scrolling('events.get_task_events', { task, batch_size: 7 }, (p) => p.events),
  'events.scalar_metrics_iter_raw': scrolling(
    'events.scalar_metrics_iter_raw',
    { task, metric: { metric: 'loss' }, batch_size: 8 },
    (p) => p.variants?.v?.iter ?? [],
  ),
  'events.get_scalar_metric_data': scrolling(
    'events.get_scalar_metric_data',
    { task, metric: 'loss' },
    (p) => p.events,
  ),
  'events.get_task_plots': scrolling('events.get_task_plots', { task, iters: 3 }, (p) => p.plots),
  'events.get_multi_task_plots': scrolling('events.get_multi_task_plots', { tasks: [task], iters: 3 }, (p) => p.plots),
  'events.plots': scrolling('events.plots', { metrics: [{ task }], iters: 2 }, (p) => p.metrics[0]?.iterations ?? []),
  'events.debug_images': scrolling(
    'events.debug_images',
    { metrics: [{ task }], iters: 2 },
    (p) => p.metrics[0]?.iterations ?? [],
  ),
  'events.get_plot_sample': {
    operation: 'events.get_plot_sample',
    first: { task, metric: 'M1', navigate_current_metric: false },
    nextOperation: 'events.next_plot_sample',
    next: (page, first) => (page.events.length === 0 ? undefined : { task, scroll_id: first.scroll_id }),
  },
  'events.get_debug_image_sample': {
    operation: 'events.get_debug_image_sample',
    first: { task, metric: 'samples', variant: 'input' },
    nextOperation: 'events.next_debug_image_sample',
    next: (page, first) => (page.event === null ? undefined : { task, scroll_id: first.scroll_id }),
  },
  'events.get_task_log': {
    operation: 'events.get_task_log',
    first: { task, batch_size: 5 },
    next: (page) =>
      page.events.length === 0 ? undefined : { task, batch_size: 5, from_timestamp: page.events.at(-1).timestamp },
  },
  'reports.get_all_ex': scrolling(
    'reports.get_all_ex',
    { tags: [tag], order_by: ['name'], size: 4, scroll_id: null },
    (p) => p.tasks,
  ),
};

describe('two query processes', () => {
  it.each(Object.keys(PAGINGS))(
    '%s: a paging started on one process continues on the other, with the same pages',
    async (name) => {
      const paging = PAGINGS[name]!;
      const onOne = await pages(paging, () => 0);
      const alternating = await pages(paging, (call) => call % 2);
      const startedOnTheOther = await pages(paging, (call) => (call === 0 ? 1 : 0));
      expect(onOne.length, `${name}: pages`).toBeGreaterThanOrEqual(2);
      expect(alternating).toEqual(onOne);
      expect(startedOnTheOther).toEqual(onOne);
    },
  );

  it("a state made on one process is another company's unknown on the other: 400/1104 for events, a new scroll for reports", async () => {
    const events = await data(0, 'events.get_task_events', { task, batch_size: 7 });
    const foreign = await callers[1]!(
      'events.get_task_events',
      { task, batch_size: 7, scroll_id: events.scroll_id },
      { token: tokenB },
    );
    expect([foreign.status, foreign.body.meta.result_subcode]).toEqual([400, 1104]);
    const nav = await data(0, 'events.get_plot_sample', { task, metric: 'M1' });
    const foreignNav = await callers[1]!(
      'events.next_plot_sample',
      { task, scroll_id: nav.scroll_id },
      { token: tokenB },
    );
    expect([foreignNav.status, foreignNav.body.meta.result_subcode]).toEqual([400, 1104]);
    const reports = await data(0, 'reports.get_all_ex', { tags: [tag], size: 4, scroll_id: null });
    const foreignReports = await data(
      1,
      'reports.get_all_ex',
      { tags: [tag], size: 4, scroll_id: reports.scroll_id },
      tokenB,
    );
    expect(foreignReports.scroll_id).not.toBe(reports.scroll_id);
    expect(foreignReports.tasks).toEqual([]);
  });
});
