/**
 * What the stock ClearML web UI sends to reports.* and needs back, in any
 * mode (issue 13, docs/reports.md decisions 11 and 12):
 * - every report widget reads `tasks[0].project.id` from get_task_data
 *   (allegroai/clearml-web report-widgets `app.effects.ts`), so task and
 *   model records carry a `project` object, also implicit ones;
 * - reports.create receives `project` and `projectName`
 *   (`report-dialog.component.ts`), the id possibly unknown here, or null
 *   for the "Projects root" option;
 * - the reports page of a project lists by the id the report was created
 *   with (reports.effects.ts `getReports`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import { reportsPageBody } from '../companion/web-ui-requests.js';
import { eventually } from '../harness/eventually.js';
import { addEvents, startReportsFixture, type ReportsFixture } from './reports-fixture.js';

let f: ReportsFixture;
const task = unique('implicit-');
const model = unique('implicit-model-');

beforeAll(async () => {
  f = await startReportsFixture();
  await addEvents(f, [
    { type: 'training_stats_scalar', task, metric: 'loss', variant: 'train', iter: 1, value: 0.5 },
    {
      type: 'training_stats_scalar',
      task: model,
      model_event: true,
      metric: 'loss',
      variant: 'train',
      iter: 1,
      value: 0.5,
    },
  ]);
}, 120_000);

afterAll(async () => {
  await f?.stop();
});

describe('get_task_data records', () => {
  it('carry a project object for implicit tasks and models (report widgets read tasks[0].project.id)', async () => {
    const scalar = await f.call('reports.get_task_data', {
      id: [task],
      model_events: false,
      scalar_metrics_iter_histogram: { metrics: [{ metric: 'loss', variants: ['train'] }], key: 'iter' },
    });
    expect(scalar.status).toBe(200);
    expect(scalar.data.tasks[0].project).toEqual({});
    const models = await f.call('reports.get_task_data', {
      id: [model],
      model_events: true,
      plots: { iters: 1, metrics: [] },
    });
    expect(models.data.tasks[0].project).toEqual({});
    const parcoords = await f.call('reports.get_task_data', {
      id: [task],
      only_fields: ['last_metrics', 'name', 'last_iteration', 'project'],
    });
    expect(parcoords.data.tasks[0].project).toEqual({});
  });

  it('leave the project out when only_fields leaves it out', async () => {
    const r = await f.call('reports.get_task_data', { id: [task], only_fields: ['name'] });
    expect(r.data.tasks[0]).toEqual({ id: task, name: task });
  });
});

describe('reports.create and reports.move with the web UI fields', () => {
  it('puts the report under the named project when the project id is unknown here', async () => {
    const projectName = unique('UI project ');
    const r = await f.call('reports.create', {
      name: unique('report '),
      comment: '',
      project: unique('clearml-project-id-'),
      projectName,
    });
    expect(r.status, JSON.stringify(r.meta)).toBe(200);
    const got = await f.call('reports.get_all_ex', { id: [r.data.id], only_fields: ['project.name'] });
    expect(got.data.tasks[0].project.name).toBe(`${projectName}/.reports`);
    // The same name again lands in the same project.
    const again = await f.call('reports.create', {
      name: unique('report '),
      project: unique('clearml-project-id-'),
      projectName,
    });
    expect(again.data.project_id).toBe(r.data.project_id);
  });

  it('takes projectName alone, and still refuses an unknown id without a name (400/401)', async () => {
    const projectName = unique('Named ');
    const r = await f.call('reports.create', { name: unique('report '), projectName });
    expect(r.status, JSON.stringify(r.meta)).toBe(200);
    const bad = await f.call('reports.create', { name: unique('report '), project: unique('nowhere-') });
    expect(bad.status).toBe(400);
    expect(bad.meta.result_subcode).toBe(401);
    const typed = await f.call('reports.create', { name: unique('report '), projectName: 5 });
    expect(typed.meta.result_subcode).toBe(12);
  });

  it('puts a report created at the "Projects root" option under the root .reports project (project null)', async () => {
    // create-new-report-form.component.ts: projectsRoot = {name: 'Projects root', id: null}; the dialog sends both.
    const r = await f.call('reports.create', {
      name: unique('root report '),
      comment: '',
      project: null,
      projectName: 'Projects root',
    });
    expect(r.status, JSON.stringify(r.meta)).toBe(200);
    const got = await f.call('reports.get_all_ex', { id: [r.data.id], only_fields: ['project.name'] });
    expect(got.data.tasks[0].project.name).toBe('.reports');
  });

  it("lists a report created or moved with a project id unknown here under that id (the project's reports page)", async () => {
    // reports.effects.ts getReports: project = the route's projectId, the id the report was created with.
    const projectId = unique('clearml-project-id-');
    const projectName = unique('Listed ');
    const created = await f.call('reports.create', {
      name: unique('report '),
      comment: '',
      project: projectId,
      projectName,
    });
    expect(created.status, JSON.stringify(created.meta)).toBe(200);
    const moved = await f.call('reports.create', { name: unique('report ') });
    const otherId = unique('clearml-project-id-');
    expect(
      (await f.call('reports.move', { task: moved.data.id, project: otherId, project_name: unique('Other ') })).status,
    ).toBe(200);
    expect(
      (await f.call('reports.move', { task: moved.data.id, project: projectId, project_name: projectName })).status,
    ).toBe(200);
    const listed = await f.call('reports.get_all_ex', reportsPageBody({ project: projectId }));
    expect(listed.status, JSON.stringify(listed.meta)).toBe(200);
    expect(listed.data.tasks.map((t: any) => t.id).sort()).toEqual([created.data.id, moved.data.id].sort());
    expect(listed.data.tasks[0].project).toEqual({ id: created.data.project_id, name: `${projectName}/.reports` });
    // The same id again, with another name (a project renamed in the ClearML server), keeps the first project.
    const again = await f.call('reports.create', {
      name: unique('report '),
      project: projectId,
      projectName: unique('Renamed '),
    });
    expect(again.data.project_id).toBe(created.data.project_id);
    // Another company does not see the first company's id mapping.
    const b = await f.call('reports.get_all_ex', { project: projectId }, f.tokenB);
    expect(b.data.tasks).toEqual([]);
  });

  it('moves a report to a project id unknown here by its name (the UI sends project and project_name)', async () => {
    const created = await f.call('reports.create', { name: unique('report ') });
    const projectName = unique('Moved to ');
    const moved = await f.call('reports.move', {
      task: created.data.id,
      project: unique('clearml-project-id-'),
      project_name: projectName,
    });
    expect(moved.status, JSON.stringify(moved.meta)).toBe(200);
    const got = await eventually(
      () => f.call('reports.get_all_ex', { id: [created.data.id], only_fields: ['project.name'] }),
      (v) => v.data.tasks[0]?.project?.name !== undefined,
    );
    expect(got.data.tasks[0].project.name).toBe(`${projectName}/.reports`);
  });
});
