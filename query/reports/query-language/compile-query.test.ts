import { describe, expect, it } from 'vitest';
import { compileQuery } from './compile-query.js';
import type { ProjectRecordLike } from './project-scope.js';
import { errorOf } from './test-records.js';
import type { ReferenceResolver, StoredRecord } from './types.js';

const T0 = Date.UTC(2024, 4, 1);
const report = (id: string, fields: Record<string, unknown> = {}): StoredRecord => ({
  id,
  name: `report ${id}`,
  type: 'report',
  status: 'created',
  company: 'c1',
  user: 'u1',
  project: 'root-r',
  report_assets: [],
  tags: [],
  system_tags: ['hidden', 'reports'],
  created: T0 + Number.parseInt(id.replace(/\D/g, '') || '0', 10) * 1000,
  last_update: T0,
  last_change: T0,
  last_changed_by: 'u1',
  ...fields,
});

const projects: ProjectRecordLike[] = [
  { id: 'root-r', name: '.reports', basename: '.reports' },
  { id: 'TR', name: 'Test reports', basename: 'Test reports' },
  { id: 'TR-r', name: 'Test reports/.reports', basename: '.reports', parent: 'TR' },
];
const resolve: ReferenceResolver = (kind, id) =>
  kind === 'project' && id === 'TR-r' ? { name: 'Test reports/.reports' } : undefined;
const ids = (records: StoredRecord[]) => records.map((r) => r.id);

describe('reports.get_all_ex (kind report)', () => {
  const records = [
    report('r1', { name: 'Rep1' }),
    report('r2', { name: 'Rep2', project: 'TR-r' }),
    report('r3', { name: 'Rep3', report: 'hello world', tags: ['x'] }),
    { id: 't1', name: 'hello', type: 'training', created: T0 },
  ];

  it('returns only reports, in creation order by default; type and filters.type are ignored', () => {
    const q = compileQuery({ type: ['training'], filters: { type: { any: { include: ['training'] } } } }, 'report');
    expect(ids(q.select(records))).toEqual(['r1', 'r2', 'r3']);
  });

  it('§8 step 7: the multi-field search never returns non-report tasks', () => {
    const q = compileQuery({ _any_: { pattern: 'hello', fields: ['name', 'id', 'tags', 'report'] } }, 'report');
    expect(ids(q.select(records))).toEqual(['r3']);
  });

  it('§8 step 6: project selection through .reports projects', () => {
    const byProject = compileQuery({ project: 'TR' }, 'report');
    expect(byProject.projectScope).toMatchObject({ via: 'reports-projects', ids: ['TR'] });
    expect(ids(byProject.select(records, projects))).toEqual(['r2']);
    expect(ids(compileQuery({ project: [null] }, 'report').select(records, projects))).toEqual(['r1', 'r3']);
    expect(ids(compileQuery({ project: null }, 'report').select(records, projects))).toEqual(['r1', 'r3']);
    expect(ids(compileQuery({ project: [] }, 'report').select(records, projects))).toEqual([]);
    expect(compileQuery({}, 'report').projectScope).toBeUndefined();
  });

  it('filters.project replaces the selection and compares stored ids', () => {
    const q = compileQuery({ project: ['TR'], filters: { project: { any: { include: ['TR-r'] } } } }, 'report');
    expect(q.projectScope).toBeUndefined();
    expect(ids(q.select(records))).toEqual(['r2']);
  });

  it('select insists on project records when the query has a project scope', () => {
    expect(() => compileQuery({ project: 'TR' }, 'report').select(records)).toThrow(/project records/);
  });

  it('top-level list condition is ignored when filters.<f> is given', () => {
    const q = compileQuery({ tags: ['x'], filters: { tags: { all: { exclude: ['x'] } } } }, 'report');
    expect(ids(q.select(records))).toEqual(['r1', 'r2']);
  });

  it('applies every accepted condition', () => {
    const rows = [
      report('r1', { comment: 'alpha', status: 'published', status_changed: T0 + 5000, parent: 'px' }),
      report('r2', { comment: 'beta', status: 'published', status_changed: T0 + 9000 }),
      report('r3', { comment: 'alphabet' }),
    ];
    const run = (request: Record<string, unknown>) => ids(compileQuery(request, 'report').select(rows));
    expect(run({ comment: '^alpha' })).toEqual(['r1', 'r3']);
    expect(run({ status: ['published'] })).toEqual(['r1', 'r2']);
    expect(run({ status_changed: ['>2024-05-01T00:00:06Z'] })).toEqual(['r2']);
    expect(run({ created: ['2024-05-01T00:00:02Z', null] })).toEqual(['r2', 'r3']);
    expect(run({ parent: ['px'] })).toEqual(['r1']);
    expect(run({ id: ['r3', 'r1'], user: 'u1' })).toEqual(['r1', 'r3']);
    expect(run({ search_text: 'alpha', order_by: ['@text_score'] })).toEqual(['r1']);
  });

  it('the web UI list call (§3.9)', () => {
    const rows = [
      report('r1', { name: 'Weekly one', last_update: T0 + 1 }),
      report('r2', { name: 'weekly two', last_update: T0 + 3, project: 'TR-r' }),
      report('r3', { name: 'weekly archived', system_tags: ['archived', 'hidden', 'reports'], last_update: T0 + 9 }),
      report('r4', { name: 'monthly', tags: ['WEEKLY'], last_update: T0 + 2 }),
      report('r5', { name: 'other' }),
    ];
    const q = compileQuery(
      {
        only_fields: [
          'name',
          'comment',
          'company',
          'tags',
          'report',
          'project.name',
          'user.name',
          'status',
          'last_update',
          'system_tags',
        ],
        size: 10,
        scroll_id: null,
        system_tags: ['__$not', 'archived'],
        order_by: ['-last_update'],
        _any_: { pattern: 'weekly', fields: ['id', 'name', 'tags', 'project'] },
      },
      'report',
    );
    expect(q.paging).toEqual({ mode: 'scroll', size: 10, refresh: false, scrollId: undefined });
    const out = q.select(rows).map((r) => q.project(r, resolve));
    expect(out.map((r) => r.id)).toEqual(['r2', 'r4', 'r1']);
    expect(out[0]).toEqual({
      id: 'r2',
      name: 'weekly two',
      company: { id: 'c1' },
      tags: [],
      project: { id: 'TR-r', name: 'Test reports/.reports' },
      user: { id: 'u1' },
      status: 'created',
      last_update: '2024-05-01T00:00:00.003000+00:00',
      system_tags: ['hidden', 'reports'],
    });
  });

  it('exposes allow_public and never applies the hidden rule to reports', () => {
    expect(compileQuery({}, 'report')).toMatchObject({ allowPublic: true, excludeHidden: false, searchHidden: false });
    expect(compileQuery({ allow_public: false }, 'report').allowPublic).toBe(false);
    expect(compileQuery({ allow_public: 'false' }, 'report').allowPublic).toBe(true);
  });
});

describe('reports.get_task_data (kinds task and model)', () => {
  const tasks: StoredRecord[] = [
    { id: 't1', name: 'train', type: 'training', status: 'in_progress', project: 'P', system_tags: [], created: 1 },
    { id: 't2', name: 'test', type: 'testing', status: 'completed', project: 'Q', system_tags: [], created: 2 },
    {
      id: 'r1',
      name: 'rep',
      type: 'report',
      status: 'created',
      project: 'P-r',
      system_tags: ['hidden', 'reports'],
      created: 3,
    },
  ];
  const run = (
    request: Record<string, unknown>,
    kind: 'task' | 'model' = 'task',
    rows = tasks,
    projectRecords?: ProjectRecordLike[],
  ) => ids(compileQuery(request, kind).select(rows, projectRecords));

  it('type compares case-insensitively', () => {
    expect(run({ type: ['TRAINING', 'Report'] })).toEqual(['t1', 'r1']);
  });

  it('project is a list condition on the record itself', () => {
    expect(run({ project: ['P'] })).toEqual(['t1']);
    expect(compileQuery({ project: ['P'] }, 'task').projectScope).toBeUndefined();
  });

  it('include_subprojects widens project through the project records', () => {
    const tree: ProjectRecordLike[] = [{ id: 'P' }, { id: 'P-r', parent: 'P' }, { id: 'Q' }];
    const q = compileQuery({ project: ['P'], include_subprojects: true }, 'task');
    expect(q.projectScope).toMatchObject({ via: 'list', includeSubprojects: true });
    expect(run({ project: ['P'], include_subprojects: true }, 'task', tasks, tree)).toEqual(['t1', 'r1']);
  });

  it('hidden rule flags: on by default, off with search_hidden or a non-empty id', () => {
    expect(compileQuery({}, 'task').excludeHidden).toBe(true);
    expect(compileQuery({ search_hidden: true }, 'task').excludeHidden).toBe(false);
    expect(compileQuery({ id: ['r1'] }, 'task').excludeHidden).toBe(false);
    expect(compileQuery({ id: [] }, 'task').excludeHidden).toBe(true);
  });

  it('models ignore status, type and status_changed, and use model fields', () => {
    const models: StoredRecord[] = [
      { id: 'm1', name: 'net', framework: 'PyTorch', uri: 's3://a', task: 't1', created: 1, comment: 'Best' },
      { id: 'm2', name: 'tree', framework: 'XGBoost', uri: '', task: 't2', created: 2 },
    ];
    const request = { status: ['nope'], type: ['nope'], status_changed: ['>2030-01-01'], framework: ['PyTorch'] };
    expect(run(request, 'model', models)).toEqual(['m1']);
    expect(run({ task: 't2' }, 'model', models)).toEqual(['m2']);
    expect(run({ comment: 'Be' }, 'model', models)).toEqual(['m1']);
    expect(compileQuery({ only_fields: ['framework', 'task.name'] }, 'model').project(models[0]!, resolve)).toEqual({
      id: 'm1',
      framework: 'PyTorch',
      task: { id: 't1' },
    });
    expect(errorOf(() => compileQuery({ only_fields: ['status'] }, 'model')).message).toBe(
      'Fields not defined for object: fields=(status), object=Model',
    );
  });
});

describe('validation happens at compile time', () => {
  it.each([
    [{ name: 5 }, '400/12', 'Validation error (value is wrong, expected type "str" 5)'],
    [{ search_text: ['x'] }, '400/12', 'Validation error (value is wrong, expected type "str" [\'x\'])'],
    [{ tags: [1] }, '400/16', 'Invalid value for fields (invalid value type, string expected): field=tags, value=1'],
    [{ filters: 'x' }, '400/16', 'Invalid value for fields (invalid value type, string expected): field=x, value=x'],
    [
      { order_by: ['@text_score'] },
      '400/16',
      'Invalid value for fields (text score cannot be used in order_by when search text is not used)',
    ],
    [{ only_fields: ['nope'] }, '400/14', 'Fields not defined for object: fields=(nope), object=Task'],
    [
      { created: [null, null] },
      '400/12',
      'Validation error (At least one of min or max values should be provided for field created)',
    ],
    [{ name: '(' }, '400/21', 'Malformed regular expression: err=missing ), unterminated subpattern at position 0'],
    [{ page: -1 }, '400/12', 'Validation error (page must be >=0): field=page'],
    [
      { project: [5] },
      '400/16',
      'Invalid value for fields (invalid value type, string expected): field=project, value=5',
    ],
  ])('%j', (request, code, message) => {
    expect(errorOf(() => compileQuery(request, 'report'))).toEqual({ code, message });
  });
});

describe('speed', () => {
  it('evaluates a typical get_all_ex query over 10,000 records quickly', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) =>
      report(`r${i}`, {
        name: `${i % 10 === 0 ? 'Weekly' : 'Daily'} results ${i}`,
        tags: [`team-${i % 5}`, 'q2'],
        system_tags: i % 3 === 0 ? ['archived', 'hidden', 'reports'] : ['hidden', 'reports'],
        last_update: T0 + ((i * 7919) % 10_000) * 1000,
      }),
    );
    const request = {
      only_fields: [
        'name',
        'comment',
        'company',
        'tags',
        'report',
        'project.name',
        'user.name',
        'status',
        'last_update',
        'system_tags',
      ],
      size: 10,
      scroll_id: null,
      system_tags: ['__$not', 'archived'],
      order_by: ['-last_update'],
      _any_: { pattern: 'weekly', fields: ['id', 'name', 'tags', 'project'] },
    };
    const evaluate = () => {
      const q = compileQuery(request, 'report');
      return q
        .select(rows)
        .slice(0, 10)
        .map((r) => q.project(r, resolve));
    };
    evaluate(); // warm-up (JIT)
    const runs = 5;
    const started = performance.now();
    let page: Record<string, unknown>[] = [];
    for (let i = 0; i < runs; i++) page = evaluate();
    const perQuery = (performance.now() - started) / runs;
    expect(page).toHaveLength(10);
    expect(perQuery).toBeLessThan(250);
    console.info(`typical get_all_ex over 10k records: ${perQuery.toFixed(1)} ms per query`);
  });
});
