// reports.create / update / publish / archive / unarchive / delete / get_tags (reports.md §1, §2, §3.1-§3.5,
// §3.7, §3.8, §7): records, every rule and error code, idempotence, company isolation, public records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import {
  addEvents,
  seedPublicProject,
  seedPublicReport,
  startReportsFixture,
  type ReportsFixture,
} from './reports-fixture.js';

let f: ReportsFixture;
beforeAll(async () => {
  f = await startReportsFixture();
});
afterAll(async () => f?.stop());

const DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}000)?\+00:00$/;
const create = async (body: Record<string, unknown> = {}, token?: string) =>
  (await f.ok('reports.create', { name: unique('report '), ...body }, token)) as { id: string; project_id: string };
const record = async (id: string, extra: Record<string, unknown> = {}, token?: string) =>
  ((await f.ok('reports.get_all_ex', { id: [id], ...extra }, token)).tasks as any[])[0];

describe('reports.create', () => {
  it('stores the record of §1.1 and answers the id and the reports project', async () => {
    const r = await create({ name: '  Weekly results  ' });
    expect(r.id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.project_id).toMatch(/^[0-9a-f]{32}$/);
    const rec = await record(r.id);
    expect(rec).toEqual({
      id: r.id,
      name: 'Weekly results',
      type: 'report',
      status: 'created',
      company: { id: f.companyA },
      user: { id: f.userA },
      project: { id: r.project_id },
      report_assets: [],
      tags: [],
      system_tags: ['hidden', 'reports'],
      created: expect.stringMatching(DATE),
      last_update: rec.created,
      last_change: rec.created,
      last_changed_by: f.userA,
    });
    expect(rec.company).toEqual({ id: f.companyA });
  });

  it('stores comment, report, report_assets and tags (sorted on output, duplicates kept)', async () => {
    const r = await create({ comment: 'c', report: '# R', report_assets: ['https://x/1.png'], tags: ['b', 'a', 'b'] });
    const rec = await record(r.id);
    expect(rec).toMatchObject({
      comment: 'c',
      report: '# R',
      report_assets: ['https://x/1.png'],
      tags: ['a', 'b', 'b'],
    });
  });

  it('tags holding a lone surrogate (not text) are stored as UTF-8 stores them, U+FFFD, through update and delete (the fuzzer, seed 447499399: a 500)', async () => {
    const tag = unique('\ud800tag');
    const stored = tag.replace('\ud800', '\ufffd');
    const r = await create({ tags: [tag, 'plain'] });
    expect((await record(r.id)).tags).toEqual(['plain', stored].sort());
    expect((await f.ok('reports.get_tags', {})).tags).toContain(stored);
    const renamed = unique('x\udfff');
    await f.ok('reports.update', { task: r.id, tags: [renamed] });
    expect((await record(r.id)).tags).toEqual([renamed.replace('\udfff', '\ufffd')]);
    expect((await f.ok('reports.get_tags', {})).tags).not.toContain(stored);
    expect(await f.ok('reports.delete', { task: r.id })).toEqual({ deleted: 1 });
    expect((await f.ok('reports.get_tags', {})).tags).not.toContain(renamed.replace('\udfff', '\ufffd'));
  });

  it('a record whose stored tags the scripts cannot read (left by that 500 before the fix) is still updated and deleted', async () => {
    const r = await create({ tags: ['kept'] });
    // What the failed create left: the lone surrogate's escape, never counted in the tags index.
    await f.redis.hSet(f.keys.task(f.companyA, r.id), 'tags', '["\\ud800x"]');
    await f.ok('reports.update', { task: r.id, tags: ['after'] });
    expect((await record(r.id)).tags).toEqual(['after']);
    expect(await f.ok('reports.delete', { task: r.id })).toEqual({ deleted: 1 });
  });

  it('puts the report into <project>/.reports of a given project, and uses a .reports project directly', async () => {
    const base = await create({ name: unique('base ') });
    const inRoot = await create();
    expect(inRoot.project_id).toBe(base.project_id);
    const named = await f.ok('reports.move', { task: base.id, project_name: unique('Team ') });
    const direct = await create({ project: named.project_id });
    expect(direct.project_id).toBe(named.project_id);
  });

  it.each([
    [{}, '400/12', "Validation error (error for field 'name'. field is required!)"],
    [{ name: null }, '400/12', 'Validation error (field is required!)'],
    [{ name: 5 }, '400/12', 'Validation error (value is wrong, expected type "str" 5)'],
    [{ name: '  Ab  ' }, '400/12', "Validation error (value 'ab' length is lower than allowed minimum '3'.)"],
    [
      { name: 'okay', tags: ['a', 1] },
      '400/12',
      'Validation error (all items must be instances of "str", and not "int".)',
    ],
    [{ name: 'okay', tags: 'a' }, '400/12', 'Validation error (value is wrong, expected type "list" \'a\')'],
    [{ name: 'okay', project: 'nope' }, '400/401', 'Invalid project id: id=nope'],
  ])('%j → %s', async (body, code, msg) => {
    expect(await f.fail('reports.create', body)).toEqual({ code, msg });
  });

  it('refuses a duplicate name in the company (400/801) but not in another company', async () => {
    const name = unique('dup ');
    await create({ name });
    expect(await f.fail('reports.create', { name: ` ${name} ` })).toEqual({
      code: '400/801',
      msg: `Report with the same name already exists: name=${name}, company=${f.companyA}`,
    });
    await create({ name }, f.tokenB);
  });

  it('refuses projects of other companies (400/401) and public projects (403/21)', async () => {
    const other = await create({}, f.tokenB);
    expect((await f.fail('reports.create', { name: 'xyz', project: other.project_id })).code).toBe('400/401');
    const pub = await seedPublicProject(f, unique('Public '));
    expect(await f.fail('reports.create', { name: 'xyz', project: pub })).toEqual({
      code: '403/21',
      msg: `Forbidden (modification not allowed) (cannot modify public project(s), ids=('${pub}',))`,
    });
  });

  it('fails project creation per §1.3: too deep (400/409), public name (400/414), too short (400/800)', async () => {
    const r = await create();
    const deep = Array.from({ length: 10 }, (_, i) => `level${i}`).join('/');
    expect(await f.fail('reports.move', { task: r.id, project_name: deep })).toEqual({
      code: '400/409',
      msg: 'Project path exceed the maximum allowed depth: max_depth=10',
    });
    const pubName = unique('Shared ');
    await seedPublicProject(f, pubName);
    expect(await f.fail('reports.move', { task: r.id, project_name: `${pubName}/sub` })).toEqual({
      code: '400/414',
      msg: `Cannot create project. public project with the same name already exists: name=${pubName}`,
    });
    expect(await f.fail('reports.move', { task: r.id, project_name: 'ab' })).toEqual({
      code: '400/800',
      msg: 'Data validation error: name=String value is too short',
    });
    expect(await f.redis.hExists(f.keys.projectNames(f.companyA), 'ab')).toBe(0);
  });

  it('refuses a path of thousands of segments as too deep, in one answer (its prefixes are never built)', async () => {
    const r = await create();
    // 30,000 segments: their prefix names would add up to ~1.8 GB.
    const deep = 'Ql/y7k'.repeat(10_000);
    const tooDeep = { code: '400/409', msg: 'Project path exceed the maximum allowed depth: max_depth=10' };
    expect(await f.fail('reports.move', { task: r.id, project_name: deep })).toEqual(tooDeep);
    expect(await f.fail('reports.create', { name: 'deep one', projectName: deep })).toEqual(tooDeep);
    expect((await record(r.id)).project).toMatchObject({ id: r.project_id });
  });
});

describe('finding the report (§2.1)', () => {
  it.each([
    'reports.update',
    'reports.publish',
    'reports.archive',
    'reports.unarchive',
    'reports.delete',
    'reports.move',
  ])('%s: missing task, unknown id, other company, public record, non-report task', async (op) => {
    const extra = op === 'reports.move' ? { project: null } : {};
    expect(await f.fail(op, { ...extra })).toEqual({
      code: '400/12',
      msg: "Validation error (error for field 'task'. field is required!)",
    });
    expect((await f.fail(op, { task: 5, ...extra })).code).toBe('400/12');
    expect(await f.fail(op, { task: 'nope', ...extra })).toEqual({
      code: '400/101',
      msg: `Invalid task id: id=nope, company=${f.companyA}`,
    });
    const foreign = await create({}, f.tokenB);
    expect((await f.fail(op, { task: foreign.id, ...extra })).code).toBe('400/101');
    const pub = await seedPublicReport(f, { name: unique('public ') });
    expect(await f.fail(op, { task: pub, ...extra })).toEqual({
      code: '403/21',
      msg: `Forbidden (modification not allowed) (cannot modify public task(s), ids=('${pub}',))`,
    });
    const task = unique('task');
    expect((await addEvents(f, [{ type: 'log', task, msg: 'x' }])).added).toBe(1);
    expect(await f.fail(op, { task, ...extra })).toEqual({
      code: '400/150',
      msg: `Passed task is not report: id=${task}`,
    });
  });
});

describe('reports.update', () => {
  it('answers updated 0 with nothing to change, and changes nothing', async () => {
    const r = await create();
    const before = await record(r.id);
    expect(await f.ok('reports.update', { task: r.id, name: null, status: 'published' })).toEqual({
      updated: 0,
      fields: {},
    });
    expect(await record(r.id)).toEqual(before);
  });

  it('echoes the values with tags sorted and report abbreviated (§3.2)', async () => {
    const r = await create();
    const long = `${'word '.repeat(30)}end`;
    const data = await f.ok('reports.update', {
      task: r.id,
      tags: ['b', 'a'],
      report: '# Title\n\nSome   text',
      comment: '',
    });
    expect(data).toEqual({ updated: 1, fields: { tags: ['a', 'b'], report: '# Title Some text', comment: '' } });
    const abbreviated = (await f.ok('reports.update', { task: r.id, report: long })).fields.report as string;
    expect(abbreviated).toBe(`${'word '.repeat(19)}[...]`); // 19 words + ' [...]' = 100 characters
    expect((await f.ok('reports.update', { task: r.id, report: 'x'.repeat(120) })).fields.report).toBe('[...]');
    expect((await f.ok('reports.update', { task: r.id, name: '  Spaced name ' })).fields).toEqual({
      name: '  Spaced name ',
    });
    expect((await record(r.id)).name).toBe('Spaced name');
  });

  it('moves last_update only for report / report_assets; last_change and last_changed_by always', async () => {
    const r = await create();
    const t0 = await record(r.id);
    await new Promise((res) => setTimeout(res, 5));
    await f.ok('reports.update', { task: r.id, comment: 'new', tags: ['x'], name: unique('renamed ') });
    const t1 = await record(r.id);
    expect(t1.last_update).toBe(t0.last_update);
    expect(t1.last_change).not.toBe(t0.last_change);
    await new Promise((res) => setTimeout(res, 5));
    await f.ok('reports.update', { task: r.id, report_assets: ['a'] });
    const t2 = await record(r.id);
    expect(t2.last_update).toBe(t2.last_change);
    expect(t2.last_update).not.toBe(t1.last_update);
  });

  it("renames: own name is no conflict, another report's name is 400/801, a freed name is reusable", async () => {
    const a = await create();
    const b = await create();
    const nameA = (await record(a.id)).name;
    expect((await f.ok('reports.update', { task: a.id, name: nameA })).updated).toBe(1);
    expect((await f.fail('reports.update', { task: b.id, name: nameA })).code).toBe('400/801');
    await f.ok('reports.update', { task: a.id, name: unique('other ') });
    expect((await f.ok('reports.update', { task: b.id, name: nameA })).updated).toBe(1);
    expect((await f.fail('reports.create', { name: nameA })).code).toBe('400/801');
  });

  it('refuses report / report_assets on a published report (400/110) but allows name, tags, comment', async () => {
    const r = await create();
    await f.ok('reports.publish', { task: r.id });
    expect(await f.fail('reports.update', { task: r.id, report: 'New report text' })).toEqual({
      code: '400/110',
      msg: 'Invalid task status: expected=created, status=published',
    });
    expect((await f.fail('reports.update', { task: r.id, report_assets: [], comment: 'c' })).code).toBe('400/110');
    expect(
      (await f.ok('reports.update', { task: r.id, name: unique('new name '), tags: ['test'], comment: 'Yet another' }))
        .updated,
    ).toBe(1);
  });

  it('validates types and the name before finding the report', async () => {
    expect((await f.fail('reports.update', { task: 'nope', name: 'ab' })).code).toBe('400/12');
    expect((await f.fail('reports.update', { task: 'nope', report_assets: 'x' })).code).toBe('400/12');
  });
});

describe('reports.publish, archive, unarchive', () => {
  it('publish sets the status fields and refreshes them when repeated; message falls back to comment', async () => {
    const r = await create();
    const first = await f.ok('reports.publish', { task: r.id, comment: 'from comment' });
    expect(first).toEqual({
      updated: 1,
      fields: {
        status: 'published',
        status_reason: '',
        status_message: 'from comment',
        status_changed: expect.stringMatching(DATE),
        last_update: first.fields.status_changed,
        last_change: first.fields.status_changed,
        last_changed_by: f.userA,
        published: first.fields.status_changed,
      },
    });
    await new Promise((res) => setTimeout(res, 5));
    const second = await f.ok('reports.publish', { task: r.id, message: 'msg', comment: 'ignored' });
    expect(second.fields.status_message).toBe('msg');
    expect(second.fields.published).not.toBe(first.fields.published);
    expect((await f.ok('reports.publish', { task: r.id, message: 5 })).fields.status_message).toBe('');
    const rec = await record(r.id);
    expect(rec).toMatchObject({
      status: 'published',
      status_reason: '',
      status_message: '',
      published: rec.status_changed,
    });
  });

  it('publish sets last_update on the report project', async () => {
    const r = await create();
    const before = (await record(r.id, { only_fields: ['project.last_update'] })).project.last_update;
    await new Promise((res) => setTimeout(res, 5));
    const pub = await f.ok('reports.publish', { task: r.id });
    const after = (await record(r.id, { only_fields: ['project.last_update'] })).project.last_update;
    expect(after).toBe(pub.fields.last_update);
    expect(after).not.toBe(before);
  });

  it('archive and unarchive are idempotent, answer 1, keep status and last_update', async () => {
    const r = await create();
    await f.ok('reports.publish', { task: r.id });
    const before = await record(r.id);
    expect(await f.ok('reports.archive', { task: r.id, message: 'bye' })).toEqual({ archived: 1 });
    expect(await f.ok('reports.archive', { task: r.id })).toEqual({ archived: 1 });
    const archived = await record(r.id);
    expect(archived).toMatchObject({
      status: 'published',
      system_tags: ['archived', 'hidden', 'reports'],
      status_message: '',
    });
    expect(archived.last_update).toBe(before.last_update);
    expect(await f.ok('reports.unarchive', { task: r.id, comment: 'back' })).toEqual({ unarchived: 1 });
    expect(await f.ok('reports.unarchive', { task: r.id, comment: 'again' })).toEqual({ unarchived: 1 });
    expect(await record(r.id)).toMatchObject({
      system_tags: ['hidden', 'reports'],
      status_message: 'again',
      status_reason: '',
    });
  });
});

describe('reports.delete', () => {
  it('deletes drafts and archived reports; published needs force (400/123); a second delete is 400/101', async () => {
    const draft = await create();
    expect(await f.ok('reports.delete', { task: draft.id })).toEqual({ deleted: 1 });
    expect(await f.fail('reports.delete', { task: draft.id })).toEqual({
      code: '400/101',
      msg: `Invalid task id: id=${draft.id}, company=${f.companyA}`,
    });

    const published = await create();
    await f.ok('reports.publish', { task: published.id });
    expect(await f.fail('reports.delete', { task: published.id, force: false })).toEqual({
      code: '400/123',
      msg: `Task cannot be deleted (due to status, use force=True): task=${published.id}, expected=created, current=published`,
    });
    expect((await record(published.id)).status).toBe('published');
    expect(await f.ok('reports.delete', { task: published.id, force: 'false' })).toEqual({ deleted: 1 });

    const archived = await create();
    await f.ok('reports.publish', { task: archived.id });
    await f.ok('reports.archive', { task: archived.id });
    expect(await f.ok('reports.delete', { task: archived.id })).toEqual({ deleted: 1 });
    expect(await f.ok('reports.get_all_ex', { id: [draft.id, published.id, archived.id] })).toEqual({ tasks: [] });
  });

  it('frees the name and the tags, unregisters the id, and removes the emptied .reports project', async () => {
    const name = unique('to delete ');
    const tag = unique('tag');
    const r = await f.ok('reports.move', {
      task: (await create({ name, tags: [tag] })).id,
      project_name: unique('Lonely '),
    });
    const id = (await f.ok('reports.get_all_ex', { name: `^${name}$` })).tasks[0].id;
    expect((await f.ok('reports.get_tags', {})).tags).toContain(tag);
    await f.ok('reports.delete', { task: id });
    expect((await f.ok('reports.get_tags', {})).tags).not.toContain(tag);
    expect(await f.redis.exists(f.keys.project(f.companyA, r.project_id))).toBe(0);
    expect(await f.redis.exists(f.keys.task(f.companyA, id))).toBe(0);
    expect(await f.redis.exists(f.keys.owner('t', id))).toBe(0);
    expect(await f.redis.sIsMember(f.keys.companyTasks(f.companyA), id)).toBe(0);
    await create({ name });
  });
});

describe('reports.get_tags', () => {
  it('lists distinct tags of the company reports, archived included, public and other companies excluded', async () => {
    const g = await startReportsFixture();
    try {
      expect(await g.ok('reports.get_tags', {})).toEqual({ tags: [] });
      const a = await g.ok('reports.create', { name: 'one', tags: ['q2', 'nlp'] });
      await g.ok('reports.create', { name: 'two', tags: ['nlp', 'hello'] });
      await g.ok('reports.archive', { task: a.id });
      await g.ok('reports.create', { name: 'other co', tags: ['b-only'] }, g.tokenB);
      await seedPublicReport(g, { name: 'public', tags: '["pub"]' });
      expect(await g.ok('reports.get_tags', { ignored: 1 })).toEqual({ tags: ['hello', 'nlp', 'q2'] });
      await g.ok('reports.update', { task: a.id, tags: [] });
      expect(await g.ok('reports.get_tags', {})).toEqual({ tags: ['hello', 'nlp'] });
      expect(await g.ok('reports.get_tags', {}, g.tokenB)).toEqual({ tags: ['b-only'] });
    } finally {
      await g.stop();
    }
  });
});

describe('publish locks the report for event writes (events.md §1.9)', () => {
  it('accepts events to a draft, refuses them once published unless allow_locked', async () => {
    const r = await create();
    const event = (extra: Record<string, unknown> = {}) => ({
      type: 'training_stats_scalar',
      task: r.id,
      iter: 1,
      metric: 'm',
      variant: 'v',
      value: 1,
      ...extra,
    });
    expect(await addEvents(f, [event()])).toEqual({ added: 1, errors: 0, errors_info: {} });
    await f.ok('reports.publish', { task: r.id });
    expect(await addEvents(f, [event()])).toEqual({
      code: '400/131',
      error: `Events not added: Invalid task id ${r.id}=1`,
    });
    expect(await addEvents(f, [event(), { type: 'log', task: unique('t'), msg: 'x' }])).toEqual({
      added: 1,
      errors: 1,
      errors_info: { [`Invalid task id ${r.id}`]: 1 },
    });
    expect(await addEvents(f, [event({ allow_locked: true })])).toEqual({ added: 1, errors: 0, errors_info: {} });
    // Another company cannot write to the report at all.
    expect((await addEvents(f, [event({ allow_locked: true })], f.tokenB)).code).toBe('400/131');
  });
});
