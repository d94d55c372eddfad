/**
 * The service fixture of the integration tests that go through the public
 * API: the whole service (target `all`: ingest, writer, query) on the
 * suite's stack, tokens of two companies, events written through the real
 * ingest, calls, and polling until the writer made them visible. In the
 * cluster pass the same fixture answers the cluster (service-harness.ts).
 * Fixtures of one area (reports) are views over this one.
 */
import { expect } from 'vitest';
import { QueryDeps } from '../../query/query-deps.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { ndjson } from './event-builders.js';
import { eventually, type EventuallyOptions } from './eventually.js';
import { startHarness, unique, type CallResult, type Harness } from './service-harness.js';
import { connectTestRedis } from './test-redis.js';

export { unique };

export interface ServiceFixture {
  readonly h: Harness;
  readonly tokenA: string;
  readonly tokenB: string;
  /** A Redis client of the test (the cluster's in the cluster pass), to seed or inspect keys. */
  readonly redis: RedisClient;
  readonly keys: ReturnType<typeof redisKeys>;
  /** Query dependencies of the in-process service (for report sections called directly; not in the cluster pass). */
  readonly deps: QueryDeps;
  company(which: 'a' | 'b'): string;
  /** Writes events through events.add_batch (NDJSON, in chunks); expects every event accepted. */
  add(events: readonly object[], token?: string): Promise<void>;
  /** Calls an operation (as company A unless another token is given). */
  call(operation: string, body: unknown, token?: string): Promise<CallResult>;
  /** The `data` of a call that must succeed. */
  data(operation: string, body: unknown, token?: string): Promise<any>;
  /** Repeats `data` (as company A) until `done` holds for it; throws with the last answer at the deadline. */
  poll(operation: string, body: unknown, done: (data: any) => boolean, options?: EventuallyOptions): Promise<any>;
  stop(): Promise<void>;
}

export interface ServiceFixtureOptions {
  /** Service configuration beyond the harness's (a file that sets any runs in the single-process pass only). */
  env?: Record<string, string>;
  /** x-clearml-worker of the writes: the default `worker` of their events. Absent: no header. */
  worker?: string;
}

/** Lines per events.add_batch request: large writes are split like the SDK splits them. */
const CHUNK_LINES = 20_000;

export async function startServiceFixture(options: ServiceFixtureOptions = {}): Promise<ServiceFixture> {
  const h = await startHarness({ target: 'all', env: options.env ?? {} });
  const [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
  const redisConnection = await connectTestRedis(h.env.REDIS_URL!);
  const headers: Record<string, string> = {
    'content-type': 'application/json-lines',
    ...(options.worker ? { 'x-clearml-worker': options.worker } : {}),
  };
  // Built on first use: only tests of store-level sections need it (none in the cluster pass).
  let deps: QueryDeps | undefined;
  const call = (operation: string, body: unknown, token = tokenA) => h.call(operation, body, { token });
  const data = async (operation: string, body: unknown, token = tokenA) => {
    const r = await call(operation, body, token);
    expect(r.status, `${operation}: ${JSON.stringify(r.body?.meta ?? r.body)}`).toBe(200);
    return r.body.data;
  };
  return {
    h,
    tokenA,
    tokenB,
    redis: redisConnection.client,
    keys: redisKeys(h.config.REDIS_KEY_PREFIX),
    get deps() {
      const services = h.service.services;
      return (deps ??= new QueryDeps(services.config, services.logger, services.stores, services.signingSecret));
    },
    company: (which) => h.credentials[which].company,
    async add(events, token = tokenA) {
      for (let i = 0; i < events.length; i += CHUNK_LINES) {
        const r = await h.call('events.add_batch', undefined, {
          token,
          headers,
          rawBody: ndjson(events.slice(i, i + CHUNK_LINES)),
        });
        expect(r.status, JSON.stringify(r.body?.meta ?? r.body)).toBe(200);
        expect(r.body.data.errors, JSON.stringify(r.body.data.errors_info ?? r.body.data)).toBe(0);
      }
    },
    call,
    data,
    poll: (operation, body, done, pollOptions = {}) =>
      eventually(() => data(operation, body), done, { what: operation, ...pollOptions }),
    async stop() {
      await redisConnection.close().catch(() => undefined);
      await h.stop();
    },
  };
}

/** Waits until the entity has `count` events (through get_task_events, which counts exactly; `extra` narrows the read). */
export async function untilCount(
  f: ServiceFixture,
  task: string,
  count: number,
  extra: object = {},
  timeoutMs = 30_000,
): Promise<void> {
  await f.poll('events.get_task_events', { task, batch_size: 1, ...extra }, (d) => d.total === count, {
    timeoutMs,
    what: `${count} events of ${task}`,
  });
}

/** Expects an enveloped error with this code, subcode and message prefix. */
export function expectError(r: CallResult, code: number, subcode: number, messagePrefix?: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(code);
  expect(r.body.meta.result_subcode, r.body.meta.result_msg).toBe(subcode);
  if (messagePrefix !== undefined)
    expect(r.body.meta.result_msg).toMatch(new RegExp(`^${messagePrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
}
