/**
 * Shared set-up of the scalar-side read tests: the `all` service with the
 * scalar-side reads of query/events/event-operations.ts (added to the query
 * target unless it already serves them), events written through the real
 * ingest, and polling until the writer made them visible.
 */
import type { RedisClient as ServiceRedisClient } from '../../shared/stores/redis-store.js';
import { connectTestRedis } from '../harness/test-redis.js';
import { expect } from 'vitest';
import type { TargetModule } from '../../shared/launcher/target.js';
import { eventOperations } from '../../query/events/event-operations.js';
import { QueryDeps } from '../../query/query-deps.js';
import { queryTarget } from '../../query/query-target.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { startHarness, unique, type CallResult, type Harness } from '../harness/service-harness.js';

export { unique };

const queryWithScalarReads: TargetModule = (services) => {
  const base = queryTarget(services);
  const served = new Set((base.operations ?? []).map((o) => o.name));
  const deps = new QueryDeps(services.config, services.logger, services.stores, services.signingSecret);
  return { ...base, operations: [...(base.operations ?? []), ...eventOperations(deps).filter((o) => !served.has(o.name))] };
};

export interface ReadHarness {
  h: Harness;
  tokenA: string;
  tokenB: string;
  redis: ServiceRedisClient;
  keys: ReturnType<typeof redisKeys>;
  /** Sends events through events.add_batch (NDJSON), in chunks; expects every event accepted. */
  add(events: object[], token?: string): Promise<void>;
  /** Calls an operation (company A unless another token is given). */
  call(operation: string, body: unknown, token?: string): Promise<CallResult>;
  /** `call` that expects 200 and answers `data`. */
  data(operation: string, body: unknown, token?: string): Promise<any>;
  /** Repeats `data` until `until(data)` holds (the writer stores asynchronously). */
  poll(operation: string, body: unknown, until: (data: any) => boolean, timeoutMs?: number): Promise<any>;
  stop(): Promise<void>;
}

const CHUNK_LINES = 20_000;

export async function startReadHarness(env: Record<string, string> = {}): Promise<ReadHarness> {
  const h = await startHarness({ target: 'all', env, modules: { query: queryWithScalarReads } });
  const [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
  const redisConnection = await connectTestRedis(h.env.REDIS_URL!);
  const redis = redisConnection.client;
  const call = (operation: string, body: unknown, token = tokenA) => h.call(operation, body, { token });
  const data = async (operation: string, body: unknown, token = tokenA) => {
    const r = await call(operation, body, token);
    if (r.status !== 200) throw new Error(`${operation} answered ${r.status}: ${JSON.stringify(r.body?.meta ?? r.body)}`);
    return r.body.data;
  };
  return {
    h,
    tokenA,
    tokenB,
    redis,
    keys: redisKeys(h.config.REDIS_KEY_PREFIX),
    call,
    data,
    async add(events, token = tokenA) {
      for (let i = 0; i < events.length; i += CHUNK_LINES) {
        const chunk = events.slice(i, i + CHUNK_LINES);
        const r = await h.call('events.add_batch', undefined, {
          token,
          rawBody: chunk.map((e) => JSON.stringify(e)).join('\n'),
          headers: { 'content-type': 'application/json-lines' },
        });
        expect(r.status, JSON.stringify(r.body?.meta)).toBe(200);
        expect(r.body.data.errors, JSON.stringify(r.body.data.errors_info)).toBe(0);
      }
    },
    async poll(operation, body, until, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      for (;;) {
        last = await data(operation, body);
        if (until(last)) return last;
        if (Date.now() > deadline) throw new Error(`${operation} did not reach the expected state within ${timeoutMs} ms; last: ${JSON.stringify(last).slice(0, 2000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      await redisConnection.close().catch(() => undefined);
      await h.stop();
    },
  };
}

/** A scalar event as the SDK sends it. */
export const scalar = (task: string, metric: string, variant: string, iter: number | undefined, value: number, extra: object = {}) => ({
  type: 'training_stats_scalar',
  task,
  metric,
  variant,
  value,
  ...(iter === undefined ? {} : { iter }),
  ...extra,
});

/** Waits until the entity has `count` scalar events of a metric (through get_task_events, which counts exactly). */
export async function untilCount(r: ReadHarness, task: string, count: number, extra: object = {}, timeoutMs = 30_000): Promise<void> {
  await r.poll('events.get_task_events', { task, batch_size: 1, ...extra }, (d) => d.total === count, timeoutMs);
}
