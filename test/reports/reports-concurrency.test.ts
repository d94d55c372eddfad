// Name uniqueness is atomic with the store (reports.md §2.2, §2.4), and concurrent project resolution makes
// one project per path (§1.3), also across two query processes sharing Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisSingleClient } from '../../shared/stores/redis-store.js';
import { unique } from '../harness/service-harness.js';
import { startReportsFixture, type ReportsFixture } from './reports-fixture.js';

let f: ReportsFixture;
beforeAll(async () => {
  f = await startReportsFixture();
});
afterAll(async () => f?.stop());

describe('concurrent writes', () => {
  it('20 parallel creates of one name: exactly one 200, nineteen 400/801', async () => {
    const name = unique('race ');
    const results = await Promise.all(Array.from({ length: 20 }, () => f.call('reports.create', { name })));
    const codes = results.map((r) => `${r.meta.result_code}/${r.meta.result_subcode}`);
    expect(codes.filter((c) => c === '200/0')).toHaveLength(1);
    expect(codes.filter((c) => c === '400/801')).toHaveLength(19);
    expect((await f.ok('reports.get_all_ex', { name: `^${name}$` })).tasks).toHaveLength(1);
    // The refused creates leave no id owned by the company without a record (ids are global).
    const owned: string[] = [];
    // (single-process pass only: a cluster client has no whole-keyspace scan)
    for await (const keys of (f.redis as RedisSingleClient).scanIterator({
      MATCH: f.keys.owner('t', '*').replace('%002a', '*'),
      COUNT: 1000,
    })) {
      for (const key of keys) if ((await f.redis.get(key)) === f.companyA) owned.push(key);
    }
    const ids = owned.map((key) => /\{t:([^}]*)\}/.exec(key)![1]!);
    const records = await Promise.all(ids.map((id) => f.redis.exists(f.keys.task(f.companyA, id))));
    expect(ids.filter((_, i) => records[i] === 0)).toEqual([]);
  });

  it('parallel renames of different reports to one name: exactly one wins', async () => {
    const target = unique('renamed ');
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await f.ok('reports.create', { name: unique('src ') })).id);
    const results = await Promise.all(ids.map((task) => f.call('reports.update', { task, name: target })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.meta.result_subcode === 801)).toHaveLength(9);
    expect((await f.ok('reports.get_all_ex', { name: `^${target}$` })).tasks).toHaveLength(1);
  });

  it('parallel creates and renames of one name mixed: one owner', async () => {
    const name = unique('mixed ');
    const existing = await Promise.all(
      Array.from({ length: 5 }, async () => (await f.ok('reports.create', { name: unique('m ') })).id),
    );
    const results = await Promise.all([
      ...existing.map((task) => f.call('reports.update', { task, name })),
      ...Array.from({ length: 5 }, () => f.call('reports.create', { name })),
    ]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it('parallel creates into one new project path make one project', async () => {
    const base = unique('Parallel team ');
    const results = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { id } = await f.ok('reports.create', { name: unique('p ') });
        return (await f.ok('reports.move', { task: id, project_name: `${base}/nested` })).project_id as string;
      }),
    );
    expect(new Set(results).size).toBe(1);
    const names = await f.redis.hKeys(f.keys.projectNames(f.companyA));
    expect(names.filter((n) => n.startsWith(base)).sort()).toEqual([base, `${base}/nested`, `${base}/nested/.reports`]);
  });

  it('moving the last report out while others move in never loses a used project', async () => {
    const base = unique('Churn ');
    const first = await f.ok('reports.create', { name: unique('c ') });
    const into = (await f.ok('reports.move', { task: first.id, project_name: base })).project_id;
    const others = await Promise.all(
      Array.from({ length: 6 }, async () => (await f.ok('reports.create', { name: unique('c ') })).id),
    );
    await Promise.all([
      f.ok('reports.move', { task: first.id, project: null }),
      ...others.map((task) => f.ok('reports.move', { task, project_name: base })),
    ]);
    const projects = (await f.ok('reports.get_all_ex', { id: others, only_fields: ['project.name'] })).tasks.map(
      (t: any) => t.project,
    );
    for (const p of projects) {
      expect(p.name).toBe(`${base}/.reports`);
      expect(await f.redis.exists(f.keys.project(f.companyA, p.id))).toBe(1);
    }
    expect(new Set(projects.map((p: any) => p.id)).size).toBe(1);
    void into;
  });
});

describe('two query processes on one Redis', () => {
  it('a write through one is read through the other at once (read-after-write)', async () => {
    const { startHarness } = await import('../harness/service-harness.js');
    const { queryTarget } = await import('../../query/query-target.js');
    const { QueryDeps } = await import('../../query/query-deps.js');
    const { reportsOperations } = await import('../../query/reports/reports-operations.js');
    const second = await startHarness({
      target: 'query',
      env: { ...f.h.env, API_PORT: '0', GRPC_PORT: '0' },
      modules: {
        query: (s) => {
          const parts = queryTarget(s);
          if ((parts.operations ?? []).some((o) => o.name === 'reports.create')) return parts;
          return {
            ...parts,
            operations: [
              ...(parts.operations ?? []),
              ...reportsOperations(new QueryDeps(s.config, s.logger, s.stores, s.signingSecret)),
            ],
          };
        },
      },
    });
    try {
      const token = f.h.service.services.tokens.issue({ user: f.userA, company: f.companyA, role: 'user' }, 3600);
      const other = (op: string, body: unknown) => second.call(op, body, { token });
      // Warm the second process's cache, then write through the first and read through the second.
      expect((await other('reports.get_all_ex', { tags: ['rw'] })).body.data.tasks).toEqual([]);
      for (let i = 0; i < 5; i++) {
        const { id } = await f.ok('reports.create', { name: unique('rw '), tags: ['rw'] });
        const seen = (await other('reports.get_all_ex', { tags: ['rw'], only_fields: ['name'] })).body.data.tasks.map(
          (t: any) => t.id,
        );
        expect(seen).toContain(id);
        await f.ok('reports.update', { task: id, comment: `v${i}` });
        expect((await other('reports.get_all_ex', { id: [id] })).body.data.tasks[0].comment).toBe(`v${i}`);
        await f.ok('reports.delete', { task: id });
        expect((await other('reports.get_all_ex', { id: [id] })).body.data.tasks).toEqual([]);
      }
    } finally {
      await second.stop();
    }
  });
});
