// Log lines go to the task's Redis stream segments (events.md §6 reads them by timestamp, ties by arrival).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LogSegmentAppender } from '../../ingest/writer/log-segment-appender.js';
import { TaskLogs } from '../../ingest/writer/write-batch.js';
import { arrivalSeq } from '../../shared/events/wire-format.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { logRecord, PipelineClient } from './writer-fixtures.js';

let h: Harness;
let c: PipelineClient;

beforeAll(async () => {
  h = await startHarness({ target: 'writer' });
  c = await PipelineClient.open(h.config);
});
afterAll(async () => {
  await c?.close();
  await h?.stop();
});

describe('logs', () => {
  it('land in timestamp order with ids <timestamp>-<arrival seq> and the event JSON', async () => {
    const task = unique('t');
    const seq = await c.publish(task, [logRecord(task, 1000, 'b'), logRecord(task, 999, 'a'), logRecord(task, 1000, 'c'), logRecord(task, -5, 'neg')]);
    await c.drained();
    const entries = await c.logEntries(task);
    expect(entries.map((e) => [e.segment, e.id, e.event.msg])).toEqual([
      [0, `0-${arrivalSeq(seq, 3)}`, 'neg'],
      [0, `999-${arrivalSeq(seq, 1)}`, 'a'],
      [0, `1000-${arrivalSeq(seq, 0)}`, 'b'],
      [0, `1000-${arrivalSeq(seq, 2)}`, 'c'],
    ]);
    expect(entries[1]!.event).toMatchObject({ level: 'info', timestamp: 999, worker: 'w1' });
  });

  it('lines older than the stream top open a second segment and nothing is lost', async () => {
    const task = unique('t');
    await c.publish(task, [logRecord(task, 2000, 'late-1'), logRecord(task, 2001, 'late-2')]);
    await c.drained();
    await c.publish(task, [logRecord(task, 1500, 'early'), logRecord(task, 2500, 'after')]);
    await c.drained();
    await c.publish(task, [logRecord(task, 1400, 'earlier')]);
    await c.drained();
    const entries = await c.logEntries(task);
    const bySegment = (s: number) => entries.filter((e) => e.segment === s).map((e) => e.event.msg);
    expect(bySegment(0)).toEqual(['late-1', 'late-2', 'after']);
    expect(bySegment(1)).toEqual(['early']);
    expect(bySegment(2)).toEqual(['earlier']);
    expect(await c.redis.get(c.keys.logSegmentCount(task))).toBe('3');
  });

  it('a redelivered batch adds only the lines not stored yet', async () => {
    const task = unique('t');
    const appender = new LogSegmentAppender(c.redis as never, h.config.REDIS_KEY_PREFIX);
    const logs = new TaskLogs();
    const add = (ts: number, seq: number) => {
      logs.timestamps.push(ts);
      logs.seqs.push(seq);
      logs.events.push(JSON.stringify({ msg: `${ts}/${seq}` }));
      logs.owners.push(0);
    };
    add(10, 1);
    add(20, 2);
    expect(await appender.append(task, logs, new Set(), false)).toBe(2);
    add(5, 3); // below the top: a second segment
    add(30, 4);
    expect(await appender.append(task, logs, new Set(), true)).toBe(2);
    expect(await appender.append(task, logs, new Set(), true)).toBe(0);
    const entries = await c.logEntries(task);
    expect(entries.map((e) => `${e.segment}:${e.id}`)).toEqual(['0:10-1', '0:20-2', '0:30-4', '1:5-3']);
  });
});
