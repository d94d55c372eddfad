// reports.get_all_ex through the HTTP API (reports.md §3.9, §4): a representative set of conditions and
// operators (the query language has its own unit tests), project selection, paging and scrolling, projection
// with referenced names, company isolation and public reports.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberIdentityHook } from '../../query/reports/identity-directory.js';
import { unique } from '../harness/service-harness.js';
import { seedPublicReport, startReportsFixture, type ReportsFixture } from './reports-fixture.js';

let f: ReportsFixture;
const ids: Record<string, string> = {};
let teamProject = '';

beforeAll(async () => {
  f = await startReportsFixture();
  const make = async (key: string, body: Record<string, unknown>) => {
    ids[key] = (await f.ok('reports.create', { name: key, ...body })).id;
  };
  await make('Weekly alpha', { tags: ['nlp', 'q2'], comment: 'the first weekly report' });
  await make('Weekly beta', { tags: ['nlp'], report: 'hello world' });
  await make('Monthly gamma', { tags: ['cv', 'q2'], comment: 'monthly summary' });
  await make('Daily delta', { tags: [] });
  await make('Archived epsilon', { tags: ['old'] });
  await f.ok('reports.archive', { task: ids['Archived epsilon'] });
  await f.ok('reports.publish', { task: ids['Monthly gamma'] });
  teamProject = (await f.ok('reports.move', { task: ids['Daily delta'], project_name: 'Team A' })).project_id;
  await f.ok('reports.create', { name: 'Other company weekly', tags: ['nlp'] }, f.tokenB);
  // Distinct last_update values for ordering.
  await f.ok('reports.update', { task: ids['Weekly alpha'], report: 'updated last' });
});
afterAll(async () => f?.stop());

const names = async (body: Record<string, unknown>, token?: string) =>
  ((await f.ok('reports.get_all_ex', { allow_public: false, ...body }, token)).tasks as any[]).map((t) => t.name);

describe('conditions', () => {
  it.each([
    [{}, ['Weekly alpha', 'Weekly beta', 'Monthly gamma', 'Daily delta', 'Archived epsilon']],
    [{ tags: ['q2'] }, ['Weekly alpha', 'Monthly gamma']],
    [{ tags: ['nlp', '-q2'] }, ['Weekly beta']],
    [{ tags: ['__$all', 'nlp', 'q2'] }, ['Weekly alpha']],
    [{ tags: ['__$not', 'nlp'] }, ['Monthly gamma', 'Daily delta', 'Archived epsilon']],
    [{ tags: [null] }, ['Daily delta']],
    [{ system_tags: ['__$not', 'archived'] }, ['Weekly alpha', 'Weekly beta', 'Monthly gamma', 'Daily delta']],
    [{ system_tags: ['archived'] }, ['Archived epsilon']],
    [{ filters: { tags: { any: { include: ['cv', null] } } } }, ['Monthly gamma', 'Daily delta']],
    [
      { filters: { tags: { all: { exclude: ['nlp', 'q2'] } }, system_tags: { all: { exclude: ['archived'] } } } },
      ['Daily delta'],
    ],
    [{ status: ['published'] }, ['Monthly gamma']],
    [{ status: ['nonsense'] }, []],
    [{ name: '^Weekly' }, ['Weekly alpha', 'Weekly beta']],
    [{ name: 'weekly' }, []],
    [{ comment: 'weekly' }, ['Weekly alpha']],
    [{ report: 'hello' }, ['Weekly beta']],
    [{ _any_: { pattern: 'WEEKLY', fields: ['name', 'comment'] } }, ['Weekly alpha', 'Weekly beta']],
    [{ _all_: { pattern: 'L', fields: ['name', 'comment'] } }, ['Weekly alpha', 'Monthly gamma']],
    [{ any: { pattern: 'hello', fields: ['name', 'id', 'tags', 'report'] } }, ['Weekly beta']],
    [{ search_text: 'monthly' }, ['Monthly gamma']],
    [{ search_text: 'weekly -first' }, ['Weekly beta']],
    [{ id: [] }, ['Weekly alpha', 'Weekly beta', 'Monthly gamma', 'Daily delta', 'Archived epsilon']],
    [{ type: ['training'] }, ['Weekly alpha', 'Weekly beta', 'Monthly gamma', 'Daily delta', 'Archived epsilon']],
  ])('%j', async (body, expected) => {
    expect(await names(body)).toEqual(expected);
  });

  it('user, id, date-time and range conditions', async () => {
    expect(await names({ user: [f.userA], id: [ids['Weekly beta'], ids['Daily delta']] })).toEqual([
      'Weekly beta',
      'Daily delta',
    ]);
    expect(await names({ user: ['someone else'] })).toEqual([]);
    expect(await names({ status_changed: ['>=2000-01-01'] })).toEqual(['Monthly gamma']);
    expect(await names({ created: ['2000-01-01', null], tags: ['cv'] })).toEqual(['Monthly gamma']);
    expect(await names({ last_update: ['<2000-01-01'] })).toEqual([]);
  });

  it('ordering: by field, descending, @text_score; missing values last', async () => {
    expect(await names({ order_by: ['-last_update'], tags: ['nlp'] })).toEqual(['Weekly alpha', 'Weekly beta']);
    expect(await names({ order_by: ['name'] })).toEqual([
      'Archived epsilon',
      'Daily delta',
      'Monthly gamma',
      'Weekly alpha',
      'Weekly beta',
    ]);
    const byComment = await names({ order_by: ['comment'] });
    expect(byComment.slice(0, 2)).toEqual(['Monthly gamma', 'Weekly alpha']);
    expect(byComment.slice(2).sort()).toEqual(['Archived epsilon', 'Daily delta', 'Weekly beta']);
    expect(await names({ search_text: 'weekly report', order_by: ['@text_score'] })).toEqual([
      'Weekly alpha',
      'Weekly beta',
    ]);
  });

  it.each([
    [{ tags: [1] }, '400/16', 'Invalid value for fields (invalid value type, string expected): field=tags, value=1'],
    [{ tags: ['__$bad'] }, '400/16', 'Invalid value for fields (Unsupported operator): field=tags, operator=__$bad'],
    [
      { order_by: ['@text_score'] },
      '400/16',
      'Invalid value for fields (text score cannot be used in order_by when search text is not used)',
    ],
    [{ only_fields: ['nope'] }, '400/14', 'Fields not defined for object: fields=(nope), object=Task'],
    [
      { order_by: ['nope'] },
      '400/14',
      'Lookup error (probably an invalid field name or unsupported nested field): err=Cannot resolve field "nope"',
    ],
    [{ name: '(' }, '400/21', 'Malformed regular expression: err=missing ), unterminated subpattern at position 0'],
    [
      { _any_: 'weekly' },
      '400/16',
      'Invalid value for fields (failed parsing query field): error=incorrect field format: field=_any_, field=_any_',
    ],
    [{ page: -1 }, '400/12', 'Validation error (page must be >=0): field=page'],
    [
      { page: 0, page_size: null },
      '400/11',
      'Missing required fields (page_size is required when page is requested): field=page_size',
    ],
    [
      { scroll_id: null },
      '400/12',
      'Validation error (Integer size parameter greater than 1 should be provided when working with scroll)',
    ],
    [
      { filters: { tags: 'x' } },
      '400/12',
      'Validation error (invalid filter for field, dictionary expected): field=tags, value=x',
    ],
  ])('%j → %s', async (body, code, msg) => {
    expect(await f.fail('reports.get_all_ex', body)).toEqual({ code, msg });
  });
});

describe('project selection (§3.9)', () => {
  it('selects through .reports projects one level down; null is the root; [] is nothing', async () => {
    const teamA = (await f.ok('reports.get_all_ex', { id: [ids['Daily delta']], only_fields: ['project.parent'] }))
      .tasks[0].project.parent;
    expect(await names({ project: teamA })).toEqual(['Daily delta']);
    expect(await names({ project: [teamProject] })).toEqual(['Daily delta']);
    expect(await names({ project: [null], tags: ['nlp'] })).toEqual(['Weekly alpha', 'Weekly beta']);
    expect(await names({ project: null, tags: [null] })).toEqual([]);
    expect(await names({ project: [] })).toEqual([]);
    expect(await names({ project: ['unknown'] })).toEqual([]);
    expect(await names({ filters: { project: { any: { include: [teamProject] } } } })).toEqual(['Daily delta']);
  });

  it('include_subprojects reaches deeper reports projects', async () => {
    const deep = (await f.ok('reports.create', { name: unique('deep ') })).id;
    await f.ok('reports.move', { task: deep, project_name: 'Team A/Sub' });
    const teamA = (await f.ok('reports.get_all_ex', { id: [ids['Daily delta']], only_fields: ['project.parent'] }))
      .tasks[0].project.parent;
    expect((await names({ project: [teamA] })).length).toBe(1);
    expect((await names({ project: [teamA], include_subprojects: true })).length).toBe(2);
    await f.ok('reports.delete', { task: deep });
  });
});

describe('paging and scrolling (§4.9)', () => {
  let g: ReportsFixture;
  beforeAll(async () => {
    g = await startReportsFixture();
    for (let i = 0; i < 18; i++)
      await g.ok('reports.create', { name: `paged ${String(i).padStart(2, '0')}`, tags: ['p'] });
  });
  afterAll(async () => g?.stop());
  const page = async (body: Record<string, unknown>) =>
    (await g.ok('reports.get_all_ex', { tags: ['p'], order_by: ['name'], ...body })) as any;
  const n = (data: any) => (data.tasks as any[]).map((t) => Number(t.name.slice(6)));

  it('scrolls 10 + 8 + 0, then refresh_scroll returns all 18 (the §4.9 example)', async () => {
    const first = await page({ scroll_id: null, size: 10 });
    expect(first.scroll_id).toMatch(/^[0-9a-f]{32}$/);
    expect(n(first)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const second = await page({ scroll_id: first.scroll_id, size: 10 });
    expect(second.scroll_id).toBe(first.scroll_id);
    expect(n(second)).toEqual([10, 11, 12, 13, 14, 15, 16, 17]);
    expect(n(await page({ scroll_id: first.scroll_id, size: 10 }))).toEqual([]);
    const refreshed = await page({ scroll_id: first.scroll_id, size: 10, refresh_scroll: true });
    expect(n(refreshed)).toHaveLength(18);
    expect(n(await page({ scroll_id: first.scroll_id, size: 10 }))).toEqual([]);
  });

  it('keeps scroll states 600 s in Redis, restarts unknown, expired and foreign ones', async () => {
    const first = await page({ scroll_id: '', size: 5 });
    const ttl = await g.redis.ttl(g.keys.scroll(g.companyA, first.scroll_id));
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
    const unknown = await page({ scroll_id: 'f'.repeat(32), size: 5 });
    expect(unknown.scroll_id).not.toBe('f'.repeat(32));
    expect(n(unknown)).toEqual([0, 1, 2, 3, 4]);
    await g.redis.del(g.keys.scroll(g.companyA, first.scroll_id)); // what expiry does
    const expired = await page({ scroll_id: first.scroll_id, size: 5 });
    expect(expired.scroll_id).not.toBe(first.scroll_id);
    expect(n(expired)).toEqual([0, 1, 2, 3, 4]);
    const foreign = (await g.ok('reports.get_all_ex', { scroll_id: expired.scroll_id, size: 5 }, g.tokenB)) as any;
    expect(foreign.scroll_id).not.toBe(expired.scroll_id);
    expect(n(await page({ scroll_id: expired.scroll_id, size: 5 }))).toEqual([5, 6, 7, 8, 9]);
  });

  it('page mode, size mode and the default, without scroll_id', async () => {
    expect(n(await page({ page: 1, page_size: 5 }))).toEqual([5, 6, 7, 8, 9]);
    expect(n(await page({ page: 3, page_size: 5 }))).toEqual([15, 16, 17]);
    expect(n(await page({ page: 9, page_size: 5 }))).toEqual([]);
    expect(n(await page({ size: 3 }))).toEqual([0, 1, 2]);
    const all = await page({});
    expect(n(all)).toHaveLength(18);
    expect(all.scroll_id).toBeUndefined();
    expect((await page({ project: [], scroll_id: null, size: 5 })).scroll_id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('projection (§4.10, §1.2)', () => {
  it('includes, excludes, and resolves project.name, project.*, user.name, company.name', async () => {
    await rememberIdentityHook({ redis: f.redis as never, keyPrefix: f.h.config.REDIS_KEY_PREFIX })({
      user: f.userA,
      company: f.companyA,
      role: 'user',
      user_name: 'Jane',
      company_name: 'Acme',
    });
    const id = ids['Daily delta'];
    const get = async (only_fields: unknown) => (await f.ok('reports.get_all_ex', { id: [id], only_fields })).tasks[0];
    expect(await get(['name'])).toEqual({ id, name: 'Daily delta' });
    const full = await get(['project.name', 'user.name', 'company.name', 'status']);
    expect(full).toEqual({
      id,
      project: { id: teamProject, name: 'Team A/.reports' },
      user: { id: f.userA, name: 'Jane' },
      company: { id: f.companyA, name: 'Acme' },
      status: 'created',
    });
    expect(await get(['project'])).toEqual({ id, project: { id: teamProject } });
    const star = (await get(['project.*'])).project;
    expect(star).toMatchObject({
      id: teamProject,
      name: 'Team A/.reports',
      basename: '.reports',
      description: 'Reports project',
      system_tags: ['hidden', 'reports'],
    });
    expect(star.path).toBeUndefined();
    const excluded = await get(['-name', '-system_tags']);
    expect(excluded.name).toBeUndefined();
    expect(excluded.system_tags).toBeUndefined();
    expect(excluded.type).toBe('report');
  });

  it('the web UI list call', async () => {
    const data = await f.ok('reports.get_all_ex', {
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
    });
    expect(data.scroll_id).toMatch(/^[0-9a-f]{32}$/);
    expect(data.tasks.map((t: any) => t.name)).toEqual(['Weekly alpha', 'Weekly beta']);
    expect(Object.keys(data.tasks[0]).sort()).toEqual([
      'comment',
      'company',
      'id',
      'last_update',
      'name',
      'project',
      'report',
      'status',
      'system_tags',
      'tags',
      'user',
    ]);
    expect(data.tasks[0].project.name).toBe('.reports');
  });
});

describe('isolation and public reports (§1.5)', () => {
  it('companies see nothing of each other', async () => {
    expect(await names({}, f.tokenB)).toEqual(['Other company weekly']);
    expect(await names({ id: [ids['Weekly alpha']] }, f.tokenB)).toEqual([]);
    const data = await f.ok('reports.get_task_data', { id: [ids['Weekly alpha']] }, f.tokenB);
    expect(data.tasks).toEqual([]);
    expect(await f.ok('reports.get_tags', {}, f.tokenB)).toEqual({ tags: ['nlp'] });
  });

  it('public reports are read with allow_public (default true) and are read-only', async () => {
    const pub = await seedPublicReport(f, { name: 'Public weekly', tags: '["shared"]' });
    const all = (await f.ok('reports.get_all_ex', { tags: ['shared'] })).tasks;
    expect(all).toEqual([expect.objectContaining({ id: pub, company: {}, name: 'Public weekly' })]);
    expect((await f.ok('reports.get_all_ex', { tags: ['shared'] }, f.tokenB)).tasks).toHaveLength(1);
    expect((await f.ok('reports.get_all_ex', { tags: ['shared'], allow_public: false })).tasks).toEqual([]);
    expect((await f.fail('reports.update', { task: pub, comment: 'x' })).code).toBe('403/21');
    expect((await f.ok('reports.get_tags', {})).tags).not.toContain('shared');
    // A public report's name does not block the company's own.
    await f.ok('reports.create', { name: 'Public weekly' });
  });
});
