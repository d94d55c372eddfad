// Deletions through the stream (events.md §6.3, §9): run in stream order, answered on the reply subject and in Redis.
import { createInbox } from 'nats';
import { describe, expect, it } from 'vitest';
import type { ControlRecord } from '../../shared/events/wire-format.js';
import { unique } from '../harness/service-harness.js';
import { eventRecord, logRecord, scalarRecord, summaryRecord, writerPipeline } from './writer-fixtures.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';

const pipeline = writerPipeline();

/** Publishes a control record and answers the reply it gets. */
async function control(record: ControlRecord): Promise<unknown> {
  const inbox = createInbox();
  const sub = pipeline.client.nc.subscribe(inbox, { max: 1, timeout: 15_000 });
  await pipeline.client.publishControl(record, inbox);
  for await (const msg of sub) return JSON.parse(msg.string());
  throw new Error('no reply');
}

async function seed(task: string): Promise<void> {
  await pipeline.client.publish(task, [
    scalarRecord(task, 'm', 'v', 1, 1),
    scalarRecord(task, 'm', 'v', 2, 2),
    eventRecord({ type: 'training_debug_image', entity: task, metric: 'img', variant: 'v', iter: 2, url: 'x' }),
    logRecord(task, 100, 'one'),
    logRecord(task, 200, 'two', { metric: 'keep' }),
    summaryRecord({
      c: 'co',
      n: 't',
      e: task,
      u: 'u',
      at: 1,
      lastIter: 2,
      scalars: [],
      listing: [['training_stats_scalar', 'm', 'v', 1]],
    }),
  ]);
}

describe('control messages', () => {
  it('delete_entity removes points, logs and listing, answers the count, and leaves other entities alone', async () => {
    const task = unique('t');
    const other = unique('t');
    await seed(task);
    await seed(other);
    await pipeline.client.publish(task, [logRecord(task, 50, 'late: second segment')]);
    const id = unique('ctl');
    expect(await control({ op: 'delete_entity', c: 'co', n: 't', e: task, id })).toEqual({ deleted: 6 });
    expect(await pipeline.client.count('scalar', task)).toBe(0);
    expect(await pipeline.client.count('image', task)).toBe(0);
    expect(await pipeline.client.logEntries(task)).toEqual([]);
    expect(await pipeline.client.redis.exists(pipeline.client.keys.metricListing('co', 't', task))).toBe(0);
    // Statistics stay (deleting events does not reset them).
    expect(await pipeline.client.redis.hGet(pipeline.client.keys.entity('co', 't', task), 'last_iteration')).toBe('2');
    expect(
      JSON.parse(
        (await pipeline.client.redis.get(redisKeys(pipeline.harness.config.REDIS_KEY_PREFIX).controlResult(id)))!,
      ),
    ).toEqual({ deleted: 6 });
    await pipeline.client.drained(); // the other task may be in another partition, consumed independently
    expect(await pipeline.client.count('scalar', other)).toBe(2);
    expect(await pipeline.client.logEntries(other)).toHaveLength(2);
    // A repeated request finds nothing; its id keeps the first answer.
    expect(await control({ op: 'delete_entity', c: 'co', n: 't', e: task, id })).toEqual({ deleted: 6 });
    expect(await control({ op: 'delete_entity', c: 'co', n: 't', e: task, id: unique('ctl') })).toEqual({ deleted: 0 });
    // Events after the deletion are kept.
    await seed(task);
    await pipeline.client.drained();
    expect(await pipeline.client.count('scalar', task)).toBe(2);
  });

  it('clear_task_log with before, include and exclude', async () => {
    const task = unique('t');
    await pipeline.client.publish(task, [
      logRecord(task, 100, 'a', { metric: 'x' }),
      logRecord(task, 200, 'b', { metric: 'y' }),
      logRecord(task, 300, 'c', { metric: '' }),
      logRecord(task, 400, 'd', { metric: 'x' }),
      scalarRecord(task, 'm', 'v', 1, 1),
    ]);
    await pipeline.client.publish(task, [logRecord(task, 150, 'e', { metric: 'y' })]); // second segment
    const msgs = async () => (await pipeline.client.logEntries(task)).map((e) => e.event.msg).sort();
    expect(
      await control({ op: 'clear_task_log', c: 'co', e: task, id: unique('ctl'), include: ['y'], before: 180 }),
    ).toEqual({ deleted: 1 });
    expect(await msgs()).toEqual(['a', 'b', 'c', 'd']);
    expect(await control({ op: 'clear_task_log', c: 'co', e: task, id: unique('ctl'), exclude: ['x'] })).toEqual({
      deleted: 2,
    });
    expect(await msgs()).toEqual(['a', 'd']);
    expect(await control({ op: 'clear_task_log', c: 'co', e: task, id: unique('ctl'), before: 400 })).toEqual({
      deleted: 1,
    });
    expect(await msgs()).toEqual(['d']);
    expect(await control({ op: 'clear_task_log', c: 'co', e: task, id: unique('ctl') })).toEqual({ deleted: 1 });
    expect(await msgs()).toEqual([]);
    expect(await pipeline.client.count('scalar', task)).toBe(1);
  });
});
