// Several summaries of one entity in a batch are applied in one script call (summary-calls.ts): the
// entity record, last_metrics, the listing and the image index must end as applying them one by one
// does, the mean rounded after each request included (events.md §1.11).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeEvent } from '../../ingest/events/event-normalizer.js';
import { EntitySummaryBuilder } from '../../ingest/events/request-summary.js';
import { applySummaryGroup } from '../../ingest/writer/record-isolation.js';
import { SummaryApplier } from '../../ingest/writer/summary-applier.js';
import { WriteBatch, type BatchSummary } from '../../ingest/writer/write-batch.js';
import { LISTING_VERSION_FIELD } from '../../shared/events/storage-layout.js';
import { createLogger } from '../../shared/observability/logger.js';
import type { EntitySummary } from '../../shared/events/wire-format.js';
import { unique } from '../harness/service-harness.js';
import { writerPipeline } from './writer-fixtures.js';

const pipeline = writerPipeline();
const applier = () => new SummaryApplier(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);

/** One request: its events (without task), receive time and user. */
interface Request {
  at: number;
  user: string;
  events: Array<Record<string, unknown>>;
}

// Small integers often: ties of minima and maxima at other iterations are where merging could go wrong.
const value = fc.oneof(
  { arbitrary: fc.integer({ min: -2, max: 2 }), weight: 3 },
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0.1, 0.125, 1 / 3, 2.675, -0.005, 1e308, -1e308, Number.MAX_VALUE, 5e-324),
);
const iter = fc.option(fc.integer({ min: -3, max: 40 }), { nil: undefined });
const series = { metric: fc.constantFrom('loss', 'acc', 'a/b "q"'), variant: fc.constantFrom('train', 'val') };
const event = fc.oneof(
  fc.record({
    type: fc.constant('training_stats_scalar'),
    ...series,
    iter,
    value,
    timestamp: fc.integer({ min: 1, max: 50 }),
    x_axis_label: fc.option(fc.constantFrom('epoch', 'step/Ü'), { nil: undefined }),
  }),
  fc.record({
    type: fc.constant('training_debug_image'),
    metric: fc.constant('img'),
    variant: fc.constantFrom('v1', 'v2'),
    iter,
    key: fc.constantFrom('a', 'b'),
    url: fc.constantFrom('u/a', 'u/b', 'u/c'),
  }),
  fc.record({ type: fc.constant('log'), iter, msg: fc.constant('m') }),
  fc.record({ type: fc.constant('training_stats_vector'), ...series, iter, values: fc.constant([1, 2]) }),
);
const request: fc.Arbitrary<Request> = fc.record({
  at: fc.integer({ min: 1000, max: 1003 }),
  user: fc.constantFrom('alice', 'bob'),
  events: fc.array(event, { minLength: 1, maxLength: 6 }),
});

/** The summary ingest builds for the request's events of `task`. */
function summaryOf(task: string, { at, user, events }: Request): EntitySummary {
  const builder = new EntitySummaryBuilder('co', 't', task);
  for (const raw of events) {
    const { event: e } = normalizeEvent(
      { ...raw, task },
      { receivedAt: at, defaultWorker: 'w', allowLockedDefault: false },
    );
    if (e !== undefined) builder.add(e);
  }
  return builder.build(user, at);
}

/** Everything the summary script writes for an entity, parsed where it is JSON (its text may escape differently). */
async function storedState(task: string) {
  const { redis, keys } = pipeline.client;
  const parsedValues = (hash: Record<string, string>) =>
    Object.fromEntries(Object.entries(hash).map(([k, v]) => [k, v.startsWith('{') ? JSON.parse(v) : v]));
  return {
    // A listing's version is a value of the company's counter: entities compared here differ in it by design.
    record: withoutVersionValue(await redis.hGetAll(keys.entity('co', 't', task))),
    lastMetrics: parsedValues(await redis.hGetAll(keys.lastMetrics('co', 't', task))),
    listing: (await redis.sMembers(keys.metricListing('co', 't', task))).sort(),
    imageIndex: parsedValues(await redis.hGetAll(keys.imageIndex('co', 't', task))),
    imageUrls: await redis.hGetAll(keys.imageIndexUrls('co', 't', task)),
  };
}

const withoutVersionValue = (record: Record<string, string>) =>
  LISTING_VERSION_FIELD in record ? { ...record, [LISTING_VERSION_FIELD]: 'some version' } : record;

const members = (task: string, requests: readonly Request[], firstSeq: number): BatchSummary[] =>
  requests.map((r, i) => ({ summary: summaryOf(task, r), seq: firstSeq + i, owner: 0, index: i }));

describe('summaries merged into one call', () => {
  it('leave the entity as applying them one by one does, after any earlier summaries', async () => {
    const a = applier();
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { maxLength: 2 }),
        fc.array(request, { minLength: 2, maxLength: 5 }),
        async (earlier, batch) => {
          const [merged, oneByOne] = [unique('t'), unique('t')];
          for (const task of [merged, oneByOne])
            for (const entry of members(task, earlier, 10)) await a.apply(entry.summary, entry.seq);
          expect(await a.applyMerged(members(merged, batch, 100))).toBe('applied');
          for (const entry of members(oneByOne, batch, 100)) expect(await a.apply(entry.summary, entry.seq)).toBe(true);
          expect(await storedState(merged)).toEqual(await storedState(oneByOne));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('are skipped when applied before, and write nothing when only some of them were', async () => {
    const a = applier();
    const requests: Request[] = [1, 2, 3].map((n) => ({
      at: 1000 + n,
      user: `u${n}`,
      events: [{ type: 'training_stats_scalar', metric: 'loss', variant: 'train', iter: n, value: n / 3 }],
    }));
    const [task, reference] = [unique('t'), unique('t')];
    const batch = members(task, requests, 100);
    // A batch stored again after a crash: its first summary had been applied alone.
    await a.apply(batch[0]!.summary, batch[0]!.seq);
    const before = await storedState(task);
    expect(await a.applyMerged(batch)).toBe('partly applied before');
    expect(await storedState(task)).toEqual(before);
    // The writer then applies them one by one, which skips the first.
    for (const entry of batch) await a.apply(entry.summary, entry.seq);
    for (const entry of members(reference, requests, 100)) await a.apply(entry.summary, entry.seq);
    expect(await storedState(task)).toEqual(await storedState(reference));
    expect(await a.applyMerged(batch)).toBe('skipped');
    expect(await storedState(task)).toEqual(await storedState(reference));
  });

  it('are applied one by one when the call is refused, so that each refused summary is dead-lettered with its own place', async () => {
    const a = applier();
    const task = unique('t');
    const requests: Request[] = [1, 2].map((n) => ({
      at: 1000 + n,
      user: 'u',
      events: [{ type: 'training_stats_scalar', metric: 'loss', variant: 'train', iter: n, value: n }],
    }));
    const group = members(task, requests, 100).map((entry, i) => ({ ...entry, owner: i, index: 7 + i }));
    // A key of the wrong type: Redis refuses every call of the entity for good (WRONGTYPE).
    await pipeline.client.redis.set(pipeline.client.keys.lastMetrics('co', 't', task), 'not a hash');
    const batch = new WriteBatch();
    const retry = {
      maxDelayMs: 10,
      signal: new AbortController().signal,
      onRetry: () => {},
      logger: createLogger({ level: 'silent', name: 'merging' }),
    };
    expect(await applySummaryGroup(batch, group, a, retry)).toBe(0);
    expect(batch.refusals.map(({ owner, index, reason }) => ({ owner, index, reason }))).toEqual([
      { owner: 0, index: 7, reason: 'redis_wrongtype' },
      { owner: 1, index: 8, reason: 'redis_wrongtype' },
    ]);
    expect(await pipeline.client.redis.hGetAll(pipeline.client.keys.entity('co', 't', task))).toEqual({});
  });
});
