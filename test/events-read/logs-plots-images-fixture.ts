/**
 * Shared set-up of the log, plot and debug-image read tests: the whole
 * service (ingest, writer, query with these operations), events written
 * through the real ingest, and polling until the writer stored them.
 */
import type { RedisClient as ServiceRedisClient } from '../../shared/stores/redis-store.js';
import { connectTestRedis } from '../harness/test-redis.js';
import { expect } from 'vitest';
import { eventOperations } from '../../query/events/event-operations.js';
import { QueryDeps } from '../../query/query-deps.js';
import { queryTarget } from '../../query/query-target.js';
import type { TargetModule } from '../../shared/launcher/target.js';
import { startHarness, unique, type CallResult, type Harness } from '../harness/service-harness.js';

export { unique };

/** queryTarget plus these operations (skipping any the target already registers, once it is wired there). */
const queryWithReads: TargetModule = (services) => {
  const base = queryTarget(services);
  const present = new Set((base.operations ?? []).map((o) => o.name));
  const deps = new QueryDeps(services.config, services.logger, services.stores, services.signingSecret);
  const extra = eventOperations(deps).filter((o) => !present.has(o.name));
  return { ...base, operations: [...(base.operations ?? []), ...extra] };
};

export interface ReadFixture {
  readonly h: Harness;
  readonly tokenA: string;
  readonly tokenB: string;
  readonly redis: ServiceRedisClient;
  /** Query dependencies of the test process (for the report sections, called directly). */
  readonly deps: QueryDeps;
  /** Writes events through events.add_batch (NDJSON); expects every event accepted. */
  add(events: readonly object[], token?: string): Promise<void>;
  call(operation: string, body: unknown, token?: string): Promise<CallResult>;
  /** The `data` of a call that must succeed. */
  data(operation: string, body: unknown, token?: string): Promise<any>;
  /** Repeats `read` until `done` holds for its result (the writer stores within about a second). */
  until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs?: number): Promise<T>;
  company(which: 'a' | 'b'): string;
  stop(): Promise<void>;
}

export async function startReadFixture(env: Record<string, string> = {}): Promise<ReadFixture> {
  const h = await startHarness({ target: 'all', env, modules: { query: queryWithReads } });
  const [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
  const redisConnection = await connectTestRedis(h.env.REDIS_URL!);
  const redis = redisConnection.client;
  // Built on first use: only tests of store-level sections need it (none in the cluster pass).
  let deps: QueryDeps | undefined;
  const call = (operation: string, body: unknown, token = tokenA) => h.call(operation, body, { token });
  const fixture: ReadFixture = {
    h,
    tokenA,
    tokenB,
    redis,
    get deps() {
      const services = h.service.services;
      return (deps ??= new QueryDeps(services.config, services.logger, services.stores, services.signingSecret));
    },
    async add(events, token = tokenA) {
      const r = await h.call('v2.23/events.add_batch', undefined, {
        token,
        headers: { 'content-type': 'application/json-lines', 'x-clearml-worker': 'test-worker' },
        rawBody: events.map((e) => JSON.stringify(e)).join('\n'),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.errors, JSON.stringify(r.body.data)).toBe(0);
    },
    call,
    async data(operation, body, token = tokenA) {
      const r = await call(operation, body, token);
      expect(r.status, `${operation}: ${JSON.stringify(r.body?.meta ?? r.body)}`).toBe(200);
      return r.body.data;
    },
    async until(read, done, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await read();
        if (done(value) || Date.now() > deadline) return value;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    company: (which) => h.credentials[which].company,
    async stop() {
      await redisConnection.close().catch(() => undefined);
      await h.stop();
    },
  };
  return fixture;
}

/** Expects an enveloped error with this code, subcode and message prefix. */
export function expectError(r: CallResult, code: number, subcode: number, messagePrefix?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(code);
  expect(r.body.meta.result_subcode, r.body.meta.result_msg).toBe(subcode);
  if (messagePrefix !== undefined) expect(r.body.meta.result_msg).toMatch(new RegExp(`^${messagePrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
}
