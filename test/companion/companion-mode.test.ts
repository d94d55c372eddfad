/**
 * Companion mode (issue 13, docs/clearml-companion.md) against the ClearML
 * stand-in: entity facts come from the ClearML server with the caller's own
 * token, experiments without events read as empty, names and projects are
 * ClearML's, published tasks are locked, ClearML-issued tokens (header and
 * cookie) are accepted, an unreachable ClearML server is a 503, and no
 * company sees another's data whatever ids it names. Request shapes are the
 * web UI's (allegroai/clearml-web: report-widgets app.effects.ts,
 * experiment-output scalars/plots/debug-images effects).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { expectError, type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { ClearmlStandIn } from './clearml-stand-in.js';
import { reportsPageBody } from './web-ui-requests.js';

const secret = randomBytes(32).toString('base64url');
let clearml: ClearmlStandIn;
let f: ServiceFixture;
let tokenA: string;
let tokenB: string;

const projectA = { id: unique('proj'), name: 'Vision/Detection' };
const withEvents = unique('task-events-');
const noEvents = unique('task-draft-');
const published = unique('task-published-');
const modelA = unique('model-');
const taskOfB = unique('task-of-b-');

const call = (operation: string, body: unknown, token = tokenA) => f.h.call(operation, body, { token });

async function addAs(token: string, events: object[]) {
  return f.h.call('v2.23/events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: events.map((e) => JSON.stringify(e)).join('\n'),
  });
}

beforeAll(async () => {
  clearml = new ClearmlStandIn(secret);
  await clearml.start();
  f = await startServiceFixture({
    env: {
      CLEARML_SERVER_URL: clearml.url,
      CLEARML_TOKEN_SECRET: secret,
      CLEARML_TIMEOUT_MS: '1000',
      CLEARML_FACTS_TTL_MS: '200',
    },
    worker: 'test-worker',
  });
  const a = f.company('a');
  const b = f.company('b');
  tokenA = clearml.issueToken('user-a', a);
  tokenB = clearml.issueToken('user-b', b);
  clearml.tasks.set(withEvents, {
    id: withEvents,
    company: a,
    name: 'resnet training',
    project: projectA,
    status: 'in_progress',
    type: 'training',
  });
  clearml.tasks.set(noEvents, {
    id: noEvents,
    company: a,
    name: 'queued run',
    project: projectA,
    status: 'queued',
    type: 'training',
  });
  clearml.tasks.set(published, {
    id: published,
    company: a,
    name: 'final run',
    project: projectA,
    status: 'published',
    type: 'training',
  });
  clearml.tasks.set(taskOfB, {
    id: taskOfB,
    company: b,
    name: 'b secret run',
    status: 'in_progress',
    type: 'training',
  });
  clearml.models.set(modelA, { id: modelA, company: a, name: 'resnet model', project: projectA, ready: false });

  const r = await addAs(tokenA, [
    ...[1, 2, 3].map((iter) => ({
      type: 'training_stats_scalar',
      task: withEvents,
      metric: 'loss',
      variant: 'train',
      iter,
      value: iter / 10,
    })),
    {
      type: 'training_stats_scalar',
      task: withEvents,
      metric: 'Summary',
      variant: 'acc',
      iter: -2147483648,
      value: 0.9,
    },
    { type: 'plot', task: withEvents, metric: 'roc', variant: 'v', iter: 1, plot_str: '{"data": []}' },
    { type: 'log', task: withEvents, msg: 'hello from A' },
    {
      type: 'training_stats_scalar',
      task: modelA,
      model_event: true,
      metric: 'loss',
      variant: 'train',
      iter: 1,
      value: 1,
    },
  ]);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.data).toMatchObject({ added: 7, errors: 0 });
  await eventually(
    () => f.data('events.get_task_log', { task: withEvents }, tokenA),
    (d) => d.total === 1,
  );
  await eventually(
    () => f.data('events.get_multi_task_plots', { tasks: [withEvents], iters: 1 }, tokenA),
    (d) => Object.keys(d.plots).length === 1,
  );
}, 120_000);

afterAll(async () => {
  await f?.stop();
  await clearml?.stop();
});

describe('event writes', () => {
  it('accept tasks the ClearML server knows, reject unknown ids and published tasks without allow_locked', async () => {
    const unknown = unique('nowhere-');
    const r = await addAs(tokenA, [
      { type: 'log', task: withEvents, msg: 'ok' },
      { type: 'log', task: unknown, msg: 'no such task' },
      { type: 'log', task: published, msg: 'locked' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      added: 1,
      errors: 2,
      errors_info: { [`Invalid task id ${unknown}`]: 1, [`Invalid task id ${published}`]: 1 },
    });
    const forced = await addAs(tokenA, [{ type: 'log', task: published, msg: 'forced', allow_locked: true }]);
    expect(forced.body.data).toMatchObject({ added: 1, errors: 0 });
  });

  it('ask the ClearML server once per request and namespace, never per event', async () => {
    const before = clearml.callCount('tasks.get_all_ex');
    const ids = Array.from({ length: 30 }, () => unique('bulk-'));
    for (const id of ids) clearml.tasks.set(id, { id, company: f.company('a'), name: id, status: 'created' });
    const events = ids.flatMap((task) =>
      [1, 2, 3, 4].map((iter) => ({
        type: 'training_stats_scalar',
        task,
        metric: 'm',
        variant: 'v',
        iter,
        value: iter,
      })),
    );
    const r = await addAs(tokenA, events);
    expect(r.body.data).toMatchObject({ added: 120, errors: 0 });
    expect(clearml.callCount('tasks.get_all_ex') - before).toBe(1);
  });

  it("reject another company's task, even when the ClearML server answers with it", async () => {
    const r = await addAs(tokenA, [{ type: 'log', task: taskOfB, msg: 'into B' }]);
    expect(r.status).toBe(400);
    clearml.leakCompany = true;
    try {
      const leaked = await addAs(tokenA, [{ type: 'log', task: taskOfB, msg: 'into B' }]);
      expect(leaked.status).toBe(400);
      expect(leaked.body.meta.result_msg).toContain(`Invalid task id ${taskOfB}`);
    } finally {
      clearml.leakCompany = false;
    }
  });
});

describe('reads', () => {
  it('answer empty data for an experiment that exists in ClearML and has no events yet', async () => {
    const log = await f.data('events.get_task_log', { task: noEvents }, tokenA);
    expect(log).toMatchObject({ events: [], returned: 0, total: 0 });
    expect(await f.data('events.scalar_metrics_iter_histogram', { task: noEvents }, tokenA)).toEqual({});
    expect(await f.data('events.get_task_plots', { task: noEvents, iters: 1 }, tokenA)).toMatchObject({
      plots: [],
      total: 0,
    });
    const metrics = await f.data(
      'events.get_multi_task_metrics',
      { tasks: [noEvents], event_type: 'training_stats_scalar' },
      tokenA,
    );
    expect(metrics.metrics).toEqual([]);
    const images = await f.data('events.debug_images', { metrics: [{ task: noEvents }], iters: 3 }, tokenA);
    expect(images.metrics).toEqual([{ task: noEvents, iterations: [] }]);
    const compare = await f.data(
      'events.multi_task_scalar_metrics_iter_histogram',
      { tasks: [noEvents, withEvents], key: 'iter' },
      tokenA,
    );
    expect(Object.keys(compare.metrics)).toEqual(['loss']);
  });

  it('name tasks with their ClearML names in multi-task answers', async () => {
    const compare = await f.data(
      'events.multi_task_scalar_metrics_iter_histogram',
      { tasks: [withEvents], key: 'iter' },
      tokenA,
    );
    expect(compare.metrics.loss.train[withEvents].name).toBe('resnet training');
    const plots = await f.data('events.get_multi_task_plots', { tasks: [withEvents], iters: 1 }, tokenA);
    expect(plots.plots.roc.v[withEvents]['1'].name).toBe('resnet training');
    const single = await f.data('events.get_task_single_value_metrics', { tasks: [withEvents] }, tokenA);
    expect(single.tasks[0]).toMatchObject({ task: withEvents, task_name: 'resnet training' });
  });

  it('refuse ids the ClearML server does not show to the caller (400/101), whatever company owns them', async () => {
    expectError(await call('events.get_task_log', { task: unique('nowhere-') }), 400, 101);
    expectError(await call('events.get_task_log', { task: withEvents }, tokenB), 400, 101);
    expectError(await call('events.get_multi_task_metrics', { tasks: [withEvents] }, tokenB), 400, 101);
    expectError(
      await call('events.scalar_metrics_iter_histogram', { task: modelA, model_events: true }, tokenB),
      400,
      201,
    );
    clearml.leakCompany = true;
    try {
      expectError(await call('events.get_task_log', { task: withEvents }, tokenB), 400, 101);
    } finally {
      clearml.leakCompany = false;
    }
  });

  it('read model events of a ClearML model', async () => {
    const d = await eventually(
      () => f.data('events.scalar_metrics_iter_histogram', { task: modelA, model_events: true }, tokenA),
      (v) => v.loss !== undefined,
    );
    expect(d.loss.train.y).toEqual([1]);
  });

  it('accept the clearml_token_basic cookie the web UI sends, issued by the ClearML server', async () => {
    const r = await f.h.call(
      'events.get_task_log',
      { task: withEvents },
      { headers: { cookie: `clearml_token_basic=${tokenA}`, 'x-allegro-client': 'Webapp-2.0' } },
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.events.map((e: any) => e.msg)).toContain('hello from A');
  });

  it("refuse a token signed with neither this service's secret nor the ClearML one (401/30)", async () => {
    const forged = new ClearmlStandIn('another-secret-of-at-least-some-length').issueToken('x', f.company('a'));
    expectError(await call('events.get_task_log', { task: withEvents }, forged), 401, 30);
  });
});

describe('reports.get_task_data (web UI report widgets)', () => {
  it('carries ClearML names and projects, for tasks with and without events', async () => {
    // report-widgets app.effects.ts getScalar
    const d = await f.data(
      'reports.get_task_data',
      {
        id: [withEvents, noEvents],
        model_events: false,
        scalar_metrics_iter_histogram: { metrics: [{ metric: 'loss', variants: ['train'] }], key: 'iter' },
      },
      tokenA,
    );
    const byId = new Map(d.tasks.map((t: any) => [t.id, t]));
    expect(byId.get(withEvents)).toMatchObject({
      name: 'resnet training',
      status: 'in_progress',
      project: { id: projectA.id },
    });
    expect(byId.get(noEvents)).toMatchObject({ name: 'queued run', status: 'queued', project: { id: projectA.id } });
    expect(d.scalar_metrics_iter_histogram.loss.train[withEvents].name).toBe('resnet training');
    // getParcoords: only_fields with project; project.name from ClearML
    const p = await f.data(
      'reports.get_task_data',
      { id: [withEvents], only_fields: ['last_metrics', 'name', 'last_iteration', 'project.name'] },
      tokenA,
    );
    expect(p.tasks[0]).toMatchObject({
      id: withEvents,
      name: 'resnet training',
      project: { id: projectA.id, name: projectA.name },
      last_iteration: 3,
    });
  });

  it('answers models with ClearML facts (getPlot with model_events)', async () => {
    const d = await f.data(
      'reports.get_task_data',
      { id: [modelA], model_events: true, plots: { iters: 1, metrics: [] } },
      tokenA,
    );
    expect(d.tasks).toHaveLength(1);
    expect(d.tasks[0]).toMatchObject({ id: modelA, name: 'resnet model', project: { id: projectA.id } });
  });

  it("never answers another company's tasks", async () => {
    const d = await f.data('reports.get_task_data', { id: [withEvents, noEvents], single_value_metrics: {} }, tokenB);
    expect(d.tasks).toEqual([]);
    expect(d.single_value_metrics).toEqual([]);
    const all = await f.data('reports.get_task_data', {}, tokenB);
    expect(all.tasks.map((t: any) => t.id)).not.toContain(withEvents);
  });
});

describe("reports of a ClearML project (the project's reports page)", () => {
  // reports.effects.ts: createReport sends the ClearML project's id and name, getReports asks
  // reports.get_all_ex with the route's project id (reports-routing.module.ts ':projectId/reports').
  const listOf = (projectId: string, token = tokenA) =>
    f.data('reports.get_all_ex', reportsPageBody({ project: projectId }), token);

  it('lists a report created from the UI in a ClearML project under that project id', async () => {
    const project = { id: unique('clearml-proj-'), company: f.company('a'), name: unique('Team/Vision ') };
    clearml.projects.set(project.id, project);
    const created = await f.data(
      'reports.create',
      { name: unique('weekly '), comment: '', project: project.id, projectName: project.name },
      tokenA,
    );
    const listed = await listOf(project.id);
    expect(listed.tasks.map((t: any) => t.id)).toEqual([created.id]);
    expect(listed.tasks[0].project).toEqual({ id: created.project_id, name: `${project.name}/.reports` });
    expect((await listOf(project.id, tokenB)).tasks).toEqual([]);
  });

  it('takes the name of a ClearML project id sent without projectName from the ClearML server (stock clients send only the id)', async () => {
    const project = { id: unique('clearml-proj-'), company: f.company('a'), name: unique('Audio ') };
    clearml.projects.set(project.id, project);
    const created = await f.data('reports.create', { name: unique('report '), project: project.id }, tokenA);
    const listed = await listOf(project.id);
    expect(listed.tasks.map((t: any) => t.id)).toEqual([created.id]);
    expect(listed.tasks[0].project.name).toBe(`${project.name}/.reports`);
    const moved = await f.data('reports.create', { name: unique('report ') }, tokenA);
    const target = { id: unique('clearml-proj-'), company: f.company('a'), name: unique('Target ') };
    clearml.projects.set(target.id, target);
    expect(await f.data('reports.move', { task: moved.id, project: target.id }, tokenA)).toHaveProperty('project_id');
    expect((await listOf(target.id)).tasks.map((t: any) => t.id)).toEqual([moved.id]);
  });

  it('refuses a ClearML project id the ClearML server does not show to the caller (400/401)', async () => {
    const ofB = { id: unique('clearml-proj-'), company: f.company('b'), name: unique('B only ') };
    clearml.projects.set(ofB.id, ofB);
    expectError(await call('reports.create', { name: unique('report '), project: ofB.id }), 400, 401);
    clearml.leakCompany = true;
    try {
      expectError(await call('reports.create', { name: unique('report '), project: ofB.id }), 400, 401);
    } finally {
      clearml.leakCompany = false;
    }
    expectError(await call('reports.create', { name: unique('report '), project: unique('nowhere-') }), 400, 401);
  });
});

describe('ClearML server unreachable', () => {
  it('answers 503 (reads and writes) rather than guessing, and recovers when it is back', async () => {
    const id = unique('while-down-');
    clearml.tasks.set(id, { id, company: f.company('a'), name: id, status: 'created' });
    const port = Number(new URL(clearml.url).port);
    await clearml.stop();
    try {
      const read = await call('events.get_task_log', { task: id });
      expectError(read, 503, 0, 'ClearML server unavailable, retry later');
      const write = await addAs(tokenA, [{ type: 'log', task: id, msg: 'x' }]);
      expectError(write, 503, 0, 'ClearML server unavailable');
    } finally {
      await clearml.start(port);
    }
    expect((await call('events.get_task_log', { task: id })).status).toBe(200);
  });

  it('answers 503 when the ClearML server does not answer within CLEARML_TIMEOUT_MS', async () => {
    const id = unique('slow-');
    clearml.tasks.set(id, { id, company: f.company('a'), name: id, status: 'created' });
    clearml.delayMs = 3000;
    try {
      const started = Date.now();
      expectError(await call('events.get_task_log', { task: id }), 503, 0);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      clearml.delayMs = 0;
    }
  });
});
