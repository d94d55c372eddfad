// The worked scenario of reports.md §8, end to end: reports and projects through the API, then
// reports.get_task_data over events written through the real ingest (task and model variants).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';
import { addEvents, seedPublicTask, startReportsFixture, type ReportsFixture } from './reports-fixture.js';

let f: ReportsFixture;
beforeAll(async () => {
  f = await startReportsFixture();
});
afterAll(async () => f?.stop());

const project = async (id: string) => (await f.redis.hGetAll(f.keys.project(f.companyA, id))) as Record<string, string>;

describe('reports.md §8 steps 1-7', () => {
  let R1 = '';
  let R2 = '';
  let P0 = '';
  let P1 = '';

  it('1. create Rep1 in the root .reports project; get_tags', async () => {
    const r = await f.ok('reports.create', { name: 'Rep1', comment: 'My report', tags: ['hello'] });
    R1 = r.id;
    P0 = r.project_id;
    expect(await project(P0)).toMatchObject({
      name: '.reports',
      basename: '.reports',
      system_tags: '["hidden","reports"]',
      description: 'Reports project',
    });
    expect((await project(P0)).parent).toBeUndefined();
    const rec = (await f.ok('reports.get_all_ex', { id: [R1] })).tasks[0];
    expect(rec).toMatchObject({ type: 'report', system_tags: ['hidden', 'reports'], project: { id: P0 } });
    expect(await f.ok('reports.get_tags', {})).toEqual({ tags: ['hello'] });
  });

  it('2. update comment, tags, report_assets; get_tags is empty', async () => {
    const r = await f.ok('reports.update', {
      task: R1,
      comment: 'My new comment',
      tags: [],
      report_assets: ['file://test.jpg'],
    });
    expect(r).toEqual({
      updated: 1,
      fields: { comment: 'My new comment', tags: [], report_assets: ['file://test.jpg'] },
    });
    expect(await f.ok('reports.get_tags', {})).toEqual({ tags: [] });
  });

  it('3. publish; report edits refused, name/tags/comment allowed', async () => {
    await f.ok('reports.publish', { task: R1 });
    expect((await f.fail('reports.update', { task: R1, report: 'New report text' })).code).toBe('400/110');
    expect(
      (await f.ok('reports.update', { task: R1, name: 'new name', tags: ['test'], comment: 'Yet another comment' }))
        .updated,
    ).toBe(1);
  });

  it('4. Rep2 in P0; move R1 by project name; move R2 by project id removes the emptied P0', async () => {
    const r2 = await f.ok('reports.create', { name: 'Rep2' });
    R2 = r2.id;
    expect(r2.project_id).toBe(P0);
    P1 = (await f.ok('reports.move', { task: R1, project_name: 'Reports Test' })).project_id;
    expect(await project(P1)).toMatchObject({ name: 'Reports Test/.reports', system_tags: '["hidden","reports"]' });
    const parent = await project((await project(P1)).parent!);
    expect(parent).toMatchObject({ name: 'Reports Test', description: '', system_tags: '[]' });
    expect(await f.redis.exists(f.keys.project(f.companyA, P0))).toBe(1);
    expect(await f.ok('reports.move', { task: R2, project: P1 })).toEqual({ project_id: P1 });
    expect(await f.redis.exists(f.keys.project(f.companyA, P0))).toBe(0);
  });

  it('5. move R2 to root: a new root .reports project without parent', async () => {
    const root = (await f.ok('reports.move', { task: R2, project: null })).project_id;
    expect(root).not.toBe(P0);
    expect(await project(root)).toMatchObject({ name: '.reports' });
    expect((await project(root)).parent).toBeUndefined();
    expect(await f.ok('reports.move', { task: R2, project: '' })).toEqual({ project_id: root });
    expect(await f.fail('reports.move', { task: R2 })).toEqual({
      code: '400/11',
      msg: 'Missing required fields (project or project_name is required)',
    });
    expect((await f.fail('reports.move', { task: R2, project: 'nope' })).code).toBe('400/401');
    // The web UI sends both: the name wins.
    const team = await f.ok('reports.move', { task: R2, project: 'nope', project_name: 'Team A' });
    expect((await project(team.project_id)).name).toBe('Team A/.reports');
    await f.ok('reports.move', { task: R2, project: null });
  });

  it('6. a report created in project "Test reports" is selected by that project; [null] selects the root', async () => {
    const seed = await f.ok('reports.create', { name: 'seed for test reports' });
    const inner = (await f.ok('reports.move', { task: seed.id, project_name: 'Test reports' })).project_id;
    const testReports = (await project(inner)).parent!;
    await f.ok('reports.delete', { task: seed.id });
    const rep = await f.ok('reports.create', { name: 'Rep2 in test reports', project: testReports });
    expect((await project(rep.project_id)).name).toBe('Test reports/.reports');
    const selected = (await f.ok('reports.get_all_ex', { project: testReports })).tasks.map((t: any) => t.id);
    expect(selected).toEqual([rep.id]);
    const root = (await f.ok('reports.get_all_ex', { project: [null] })).tasks.map((t: any) => t.id);
    expect(root).toContain(R2);
    expect(root).not.toContain(rep.id);
  });

  it('7. the multi-field search finds the report once its report text says hello; tasks never', async () => {
    const task = unique('hello');
    expect((await addEvents(f, [{ type: 'log', task, msg: 'x' }])).added).toBe(1);
    const search = { _any_: { pattern: 'hello', fields: ['name', 'id', 'tags', 'report'] } };
    expect((await f.ok('reports.get_all_ex', search)).tasks).toEqual([]);
    await f.ok('reports.update', { task: R2, report: 'hello world' });
    expect((await f.ok('reports.get_all_ex', search)).tasks.map((t: any) => t.id)).toEqual([R2]);
  });
});

const SINGLE = -2147483648;

function events(entity: string, modelEvent: boolean): unknown[] {
  const out: unknown[] = [];
  for (const m of [0, 1]) {
    for (const v of [0, 1]) {
      const base = {
        task: entity,
        metric: `Metric_${m}`,
        variant: `Variant_${v}`,
        model_event: modelEvent,
        timestamp: 1714557630000,
      };
      out.push({ ...base, type: 'training_debug_image', iter: 1, url: `${m}_${v}` });
      out.push({ ...base, type: 'plot', iter: 1, plot_str: `{"data": [{"x": [${m}], "y": [${v}]}]}` });
      out.push({ ...base, type: 'training_stats_scalar', iter: 1, value: m + v / 10 });
      out.push({ ...base, type: 'training_stats_scalar', iter: SINGLE, value: 0 });
    }
  }
  return out;
}

describe.each([false, true])('reports.md §8 step 8 (model_events %s)', (modelEvents) => {
  const entity = unique(modelEvents ? 'model' : 'task');
  const sections = {
    model_events: modelEvents,
    debug_images: { metrics: [] },
    plots: { metrics: [{ metric: 'Metric_1' }] },
    scalar_metrics_iter_histogram: {},
    single_value_metrics: {},
  };
  const complete = (d: any) =>
    d?.debug_images?.[0]?.iterations?.[0]?.events?.length === 4 &&
    Object.keys(d.plots?.Metric_1 ?? {}).length === 2 &&
    Object.keys(d.scalar_metrics_iter_histogram ?? {}).length === 2 &&
    Object.keys(d.scalar_metrics_iter_histogram?.Metric_1 ?? {}).length === 2 &&
    d.single_value_metrics?.[0]?.values?.length === 4;

  beforeAll(async () => {
    expect(await addEvents(f, events(entity, modelEvents))).toEqual({ added: 16, errors: 0, errors_info: {} });
  });

  it('without sections: the records only', async () => {
    const data = await f.ok('reports.get_task_data', {
      id: [entity],
      only_fields: ['name'],
      model_events: modelEvents,
    });
    expect(data).toEqual({ tasks: [{ id: entity, name: entity }] });
  });

  it('with the four sections: computed by the events reads for the records of the answer', async () => {
    const data = await eventually(
      () => f.ok('reports.get_task_data', { id: [entity], only_fields: ['name'], ...sections }),
      complete,
    );
    expect(Object.keys(data)).toEqual([
      'tasks',
      'debug_images',
      'plots',
      'scalar_metrics_iter_histogram',
      'single_value_metrics',
    ]);
    expect(data.tasks).toEqual([{ id: entity, name: entity }]);
    expect(data.debug_images).toHaveLength(1);
    expect(data.debug_images[0].task).toBe(entity);
    expect(data.debug_images[0].iterations).toHaveLength(1);
    expect(data.debug_images[0].iterations[0].iter).toBe(1);
    expect(data.debug_images[0].iterations[0].events.map((e: any) => e.url).sort()).toEqual([
      '0_0',
      '0_1',
      '1_0',
      '1_1',
    ]);
    expect(Object.keys(data.plots)).toEqual(['Metric_1']);
    for (const variant of ['Variant_0', 'Variant_1']) {
      const cell = data.plots.Metric_1[variant];
      expect(Object.keys(cell)).toEqual([entity]);
      expect(Object.keys(cell[entity])).toEqual(['1']);
      expect(cell[entity]['1'].name).toBe(entity);
      expect(cell[entity]['1'].plots).toHaveLength(1);
      expect(cell[entity]['1'].plots[0]).toMatchObject({ type: 'plot', iter: 1, metric: 'Metric_1', variant });
    }
    const histogram = data.scalar_metrics_iter_histogram;
    expect(Object.keys(histogram).sort()).toEqual(['Metric_0', 'Metric_1']);
    for (const metric of ['Metric_0', 'Metric_1']) {
      expect(Object.keys(histogram[metric]).sort()).toEqual(['Variant_0', 'Variant_1']);
      for (const variant of ['Variant_0', 'Variant_1']) {
        expect(Object.keys(histogram[metric][variant])).toEqual([entity]);
        expect(histogram[metric][variant][entity]).toMatchObject({ name: entity, x: [1] });
      }
    }
    expect(data.single_value_metrics).toEqual([
      {
        task: entity,
        task_name: entity,
        values: [
          { metric: 'Metric_0', variant: 'Variant_0', value: 0, timestamp: 1714557630000 },
          { metric: 'Metric_0', variant: 'Variant_1', value: 0, timestamp: 1714557630000 },
          { metric: 'Metric_1', variant: 'Variant_0', value: 0, timestamp: 1714557630000 },
          { metric: 'Metric_1', variant: 'Variant_1', value: 0, timestamp: 1714557630000 },
        ],
      },
    ]);
  });

  it('the record fields maintained by event writes (§6)', async () => {
    const rec = await eventually(
      async () => (await f.ok('reports.get_task_data', { id: [entity], model_events: modelEvents })).tasks[0],
      (r: any) => r?.last_metrics !== undefined && r.last_iteration === 1,
    );
    expect(rec).toMatchObject({
      id: entity,
      name: entity,
      company: { id: f.companyA },
      user: { id: f.userA },
      last_iteration: 1,
      tags: [],
      system_tags: [],
    });
    if (!modelEvents) expect(rec).toMatchObject({ type: 'training', status: 'in_progress' });
    else expect(rec).toMatchObject({ uri: '', ready: false });
    const variants = Object.values(rec.last_metrics as Record<string, Record<string, any>>).flatMap((v) =>
      Object.values(v),
    );
    expect(variants).toHaveLength(4);
    expect(variants[0]).toHaveProperty('metric');
    expect(variants[0]).toHaveProperty('mean_value');
    expect(variants[0]).not.toHaveProperty('timestamp');
  });
});

describe('reports.get_task_data record search', () => {
  it('hides hidden records (reports) unless searched by id or with search_hidden; no type forced', async () => {
    const task = unique('visible');
    expect((await addEvents(f, [{ type: 'log', task, msg: 'x' }])).added).toBe(1);
    const report = (await f.ok('reports.create', { name: unique('hidden report ') })).id;
    const ids = async (body: Record<string, unknown>) =>
      (await f.ok('reports.get_task_data', { only_fields: ['id'], ...body })).tasks.map((t: any) => t.id);
    const all = await ids({});
    expect(all).toContain(task);
    expect(all).not.toContain(report);
    expect(await ids({ id: [report] })).toEqual([report]);
    expect(await ids({ search_hidden: true })).toContain(report);
    expect(await ids({ type: ['REPORT'], search_hidden: true })).toContain(report);
    expect(await ids({ type: ['report'], search_hidden: true })).not.toContain(task);
    expect(await ids({ id: [task], type: ['Training'] })).toEqual([task]);
  });

  it('reports events written to a report id with the report record (§1.1 exception)', async () => {
    const report = (await f.ok('reports.create', { name: unique('with events ') })).id;
    expect(
      (
        await addEvents(f, [
          { type: 'training_stats_scalar', task: report, iter: 7, metric: 'm', variant: 'v', value: 2 },
        ])
      ).added,
    ).toBe(1);
    const rec = await eventually(
      async () => (await f.ok('reports.get_all_ex', { id: [report] })).tasks[0],
      (r: any) => r.last_iteration === 7,
    );
    expect(rec.last_metrics).toBeDefined();
    expect(rec.last_changed_by).toBe(f.userA);
    // What the writer keeps for the service's own reads is not part of the record.
    for (const internal of ['summary_seq', 'summary_chunk', 'last_scalar_at', 'max_iter'])
      expect(rec).not.toHaveProperty(internal);
    const data = await eventually(
      () => f.ok('reports.get_task_data', { id: [report], scalar_metrics_iter_histogram: { key: 'iter' } }),
      (d: any) => d.scalar_metrics_iter_histogram?.m?.v?.[report] !== undefined,
    );
    expect(data.scalar_metrics_iter_histogram.m.v[report]).toMatchObject({ x: [7], y: [2] });
  });

  it('delete removes the events: the id registered again has none of them (§3.7)', async () => {
    const report = (await f.ok('reports.create', { name: unique('doomed ') })).id;
    expect(
      (
        await addEvents(f, [
          { type: 'training_stats_scalar', task: report, iter: 3, metric: 'old', variant: 'v', value: 1 },
        ])
      ).added,
    ).toBe(1);
    await eventually(
      () => f.ok('reports.get_task_data', { id: [report], scalar_metrics_iter_histogram: {} }),
      (d: any) => d.scalar_metrics_iter_histogram?.old !== undefined,
    );
    expect(await f.ok('reports.delete', { task: report })).toEqual({ deleted: 1 });
    expect(
      (
        await addEvents(f, [
          { type: 'training_stats_scalar', task: report, iter: 1, metric: 'new', variant: 'v', value: 1 },
        ])
      ).added,
    ).toBe(1);
    const data = await eventually(
      () => f.ok('reports.get_task_data', { id: [report], scalar_metrics_iter_histogram: {} }),
      (d: any) => d.scalar_metrics_iter_histogram?.new !== undefined,
    );
    expect(Object.keys(data.scalar_metrics_iter_histogram)).toEqual(['new']);
    expect(data.tasks[0]).toMatchObject({ id: report, name: report, type: 'training' });
  });

  it.each([
    [{ debug_images: { iters: 0 } }, "Validation error ('0' is lower than minimum ('1').)"],
    [{ plots: { iters: -1 } }, "Validation error ('-1' is lower than minimum ('1').)"],
    [
      { scalar_metrics_iter_histogram: { samples: 6001 } },
      "Validation error ('6001' is bigger than maximum ('6000').)",
    ],
    [{ scalar_metrics_iter_histogram: { samples: -1 } }, "Validation error ('-1' is lower than minimum ('0').)"],
    [
      { scalar_metrics_iter_histogram: { key: 'x' } },
      'Validation error (value is wrong, expected type "scalarkeyenum" \'x\')',
    ],
    [{ plots: { metrics: [{ variants: ['a'] }] } }, "Validation error (error for field 'metric'. field is required!)"],
  ])('%j → 400/12', async (body, msg) => {
    expect(await f.fail('reports.get_task_data', body)).toEqual({ code: '400/12', msg });
  });

  it('public tasks are found with allow_public, by every company, and have no events', async () => {
    const pub = await seedPublicTask(f, { name: 'public task' });
    const all = { debug_images: {}, plots: {}, scalar_metrics_iter_histogram: {}, single_value_metrics: {} };
    expect(await f.ok('reports.get_task_data', { id: [pub], ...all })).toEqual({
      tasks: [expect.objectContaining({ id: pub, name: 'public task', company: {} })],
      debug_images: [{ task: pub, iterations: [] }],
      plots: {},
      scalar_metrics_iter_histogram: {},
      single_value_metrics: [],
    });
    expect((await f.ok('reports.get_task_data', { id: [pub], allow_public: false })).tasks).toEqual([]);
    expect((await f.ok('reports.get_task_data', { name: '^public task$' }, f.tokenB)).tasks).toHaveLength(1);
  });

  it('sections are absent unless requested as objects; null requests nothing; public records have no events', async () => {
    const data = await f.ok('reports.get_task_data', {
      id: ['nothing-here'],
      plots: null,
      debug_images: {},
      single_value_metrics: {},
    });
    expect(data).toEqual({ tasks: [], debug_images: [], single_value_metrics: [] });
  });
});
