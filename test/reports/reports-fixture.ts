/**
 * The reports view of the service fixture (test/harness/service-fixture.ts):
 * tokens and companies of the two companies, calls answering `meta` and
 * `data`, seeding of public records straight into Redis, and event writes
 * that answer refusals instead of failing.
 */
import { expect } from 'vitest';
import { reportKeys } from '../../query/reports/store/report-keys.js';
import { ndjson } from '../harness/event-builders.js';
import { startServiceFixture, unique, type ServiceFixture } from '../harness/service-fixture.js';
import type { Harness } from '../harness/service-harness.js';
import type { RedisClient as ServiceRedisClient } from '../../shared/stores/redis-store.js';

export type RedisClient = ServiceRedisClient;

export interface ReportsFixture {
  /** The service fixture this view is over. */
  service: ServiceFixture;
  h: Harness;
  tokenA: string;
  tokenB: string;
  companyA: string;
  companyB: string;
  userA: string;
  redis: RedisClient;
  keys: ReturnType<typeof reportKeys>;
  call(op: string, body: unknown, token?: string): Promise<{ status: number; meta: any; data: any }>;
  /** Data of a call that must succeed. */
  ok(op: string, body: unknown, token?: string): Promise<any>;
  /** `code/subcode message` of a call that must fail. */
  fail(op: string, body: unknown, token?: string): Promise<{ code: string; msg: string }>;
  stop(): Promise<void>;
}

export async function startReportsFixture(env: Record<string, string> = {}): Promise<ReportsFixture> {
  const service = await startServiceFixture({ env });
  const { h, tokenA } = service;
  const call = async (op: string, body: unknown, token = tokenA) => {
    const r = await service.call(op, body, token);
    return { status: r.status, meta: r.body.meta, data: r.body.data };
  };
  return {
    service,
    h,
    tokenA,
    tokenB: service.tokenB,
    companyA: h.credentials.a.company,
    companyB: h.credentials.b.company,
    userA: h.credentials.a.user,
    redis: service.redis,
    keys: reportKeys(h.config.REDIS_KEY_PREFIX),
    call,
    async ok(op, body, token) {
      const r = await call(op, body, token);
      if (r.status !== 200) throw new Error(`${op} failed: ${r.status} ${r.meta?.result_msg}`);
      return r.data;
    },
    async fail(op, body, token) {
      const r = await call(op, body, token);
      expect(r.status, `${op} should fail`).not.toBe(200);
      expect(r.status).toBe(r.meta.result_code);
      return { code: `${r.meta.result_code}/${r.meta.result_subcode}`, msg: r.meta.result_msg };
    },
    stop: () => service.stop(),
  };
}

/** Writes a public (company "") record straight into Redis, as seeded data would be, and tells the caches. */
export async function seedPublicReport(f: ReportsFixture, fields: Record<string, string>): Promise<string> {
  const id = fields.id ?? unique('pub');
  const k = f.keys;
  const now = String(Date.now());
  const record: Record<string, string> = {
    id,
    type: 'report',
    status: 'created',
    company: '',
    user: 'seed-user',
    tags: '[]',
    system_tags: '["hidden","reports"]',
    report_assets: '[]',
    created: now,
    last_update: now,
    last_change: now,
    last_changed_by: 'seed-user',
    ...fields,
  };
  await f.redis.hSet(k.task('', id), record);
  await f.redis.set(k.owner('t', id), '');
  await f.redis.sAdd(k.reports(''), id);
  await f.redis.sAdd(k.companyTasks(''), id);
  if (record.name) await f.redis.hSet(k.reportNames(''), record.name, id);
  const v = await f.redis.incr(k.reportVersion(''));
  await f.redis.zAdd(k.reportChanges(''), { score: v, value: id });
  return id;
}

/** A public project record (company ""), e.g. to provoke 400/414 and 403/21. */
export async function seedPublicProject(
  f: ReportsFixture,
  name: string,
  extra: Record<string, string> = {},
): Promise<string> {
  const id = unique('pubproj');
  const basename = name.split('/').at(-1)!;
  await f.redis.hSet(f.keys.project('', id), {
    id,
    name,
    basename,
    company: '',
    user: 'seed-user',
    description: '',
    tags: '[]',
    system_tags: '[]',
    created: '0',
    last_update: '0',
    ...extra,
  });
  await f.redis.hSet(f.keys.projectNames(''), name, id);
  await f.redis.incr(f.keys.projectVersion(''));
  return id;
}

/** A public task record (not a report). */
export async function seedPublicTask(f: ReportsFixture, fields: Record<string, string> = {}): Promise<string> {
  const id = fields.id ?? unique('pubtask');
  const now = String(Date.now());
  await f.redis.set(f.keys.owner('t', id), '');
  await f.redis.hSet(f.keys.task('', id), {
    id,
    company: '',
    user: 'seed-user',
    name: id,
    type: 'training',
    status: 'completed',
    created: now,
    last_update: now,
    last_change: now,
    last_changed_by: 'seed-user',
    last_iteration: '0',
    tags: '[]',
    system_tags: '[]',
    ...fields,
  });
  await f.redis.sAdd(f.keys.companyTasks(''), id);
  return id;
}

/** Sends events through events.add_batch; answers the response data, or `{code, error}` when nothing was added. */
export async function addEvents(f: ReportsFixture, events: unknown[], token = f.tokenA): Promise<any> {
  const r = await f.h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: ndjson(events),
  });
  if (r.status === 200) return r.body.data;
  return { code: `${r.body.meta.result_code}/${r.body.meta.result_subcode}`, error: r.body.meta.result_msg };
}
