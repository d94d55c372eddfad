// Log lines go to the task's Redis stream segments (events.md §6 reads them by timestamp, ties by arrival).
import { describe, expect, it } from 'vitest';
import { LogSegmentAppender } from '../../ingest/writer/log-segment-appender.js';
import { TaskLogs } from '../../ingest/writer/write-batch.js';
import { arrivalSeq } from '../../shared/events/wire-format.js';
import { unique } from '../harness/service-harness.js';
import { logRecord, writerPipeline } from './writer-fixtures.js';

const pipeline = writerPipeline();

describe('logs', () => {
  it('land in timestamp order with ids <timestamp>-<arrival seq> and the event JSON', async () => {
    const task = unique('t');
    const seq = await pipeline.client.publish(task, [
      logRecord(task, 1000, 'b'),
      logRecord(task, 999, 'a'),
      logRecord(task, 1000, 'c'),
      logRecord(task, -5, 'neg'),
    ]);
    await pipeline.client.drained();
    const entries = await pipeline.client.logEntries(task);
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
    await pipeline.client.publish(task, [logRecord(task, 2000, 'late-1'), logRecord(task, 2001, 'late-2')]);
    await pipeline.client.drained();
    await pipeline.client.publish(task, [logRecord(task, 1500, 'early'), logRecord(task, 2500, 'after')]);
    await pipeline.client.drained();
    await pipeline.client.publish(task, [logRecord(task, 1400, 'earlier')]);
    await pipeline.client.drained();
    const entries = await pipeline.client.logEntries(task);
    const bySegment = (s: number) => entries.filter((e) => e.segment === s).map((e) => e.event.msg);
    expect(bySegment(0)).toEqual(['late-1', 'late-2', 'after']);
    expect(bySegment(1)).toEqual(['early']);
    expect(bySegment(2)).toEqual(['earlier']);
    expect(await pipeline.client.redis.get(pipeline.client.keys.logSegmentCount(task))).toBe('3');
  });

  it('a redelivered batch adds only the lines not stored yet', async () => {
    const task = unique('t');
    const appender = new LogSegmentAppender(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
    const logs = new TaskLogs();
    const add = (ts: number, seq: number) => {
      logs.timestamps.push(ts);
      logs.seqs.push(seq);
      logs.events.push(JSON.stringify({ msg: `${ts}/${seq}` }));
      logs.owners.push(0);
      logs.indexes.push(logs.indexes.length);
    };
    const all = () => logs.seqs.map((_, i) => i);
    add(10, 1);
    add(20, 2);
    expect(await appender.append(task, logs, all(), false)).toBe(2);
    add(5, 3); // below the top: a second segment
    add(30, 4);
    expect(await appender.append(task, logs, all(), true)).toBe(2);
    expect(await appender.append(task, logs, all(), true)).toBe(0);
    const entries = await pipeline.client.logEntries(task);
    expect(entries.map((e) => `${e.segment}:${e.id}`)).toEqual(['0:10-1', '0:20-2', '0:30-4', '1:5-3']);
  });

  it('an append that lands late, not told its lines may exist (a writer that lost its lease mid-batch), adds none already stored', async () => {
    const task = unique('t');
    const appender = new LogSegmentAppender(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
    const logs = new TaskLogs();
    for (const [ts, seq] of [
      [10, 1],
      [20, 2],
      [5, 3],
      [30, 4],
    ] as const) {
      logs.timestamps.push(ts);
      logs.seqs.push(seq);
      logs.events.push(JSON.stringify({ msg: `${ts}/${seq}` }));
      logs.owners.push(0);
      logs.indexes.push(logs.indexes.length);
    }
    // The next owner stored them (the line at 5 in a second segment)...
    expect(await appender.append(task, logs, [0, 1], false)).toBe(2);
    expect(await appender.append(task, logs, [2, 3], false)).toBe(2);
    // ...then the previous owner's call for the first three arrives.
    expect(
      await new LogSegmentAppender(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX).append(
        task,
        logs,
        [0, 1, 2],
        false,
      ),
    ).toBe(0);
    const entries = await pipeline.client.logEntries(task);
    expect(entries.map((e) => `${e.segment}:${e.id}`)).toEqual(['0:10-1', '0:20-2', '0:30-4', '1:5-3']);
  });

  describe('retention (LOG_RETENTION_MAX_LINES, LOG_RETENTION_MAX_AGE_MS)', () => {
    const appenderWith = (maxLines: number, maxAgeMs: number, now = () => 10_000) =>
      new LogSegmentAppender(
        pipeline.client.redis as never,
        pipeline.harness.config.REDIS_KEY_PREFIX,
        { maxLines, maxAgeMs },
        now,
      );
    const batch = (lines: Array<[number, number]>) => {
      const logs = new TaskLogs();
      for (const [ts, seq] of lines) {
        logs.timestamps.push(ts);
        logs.seqs.push(seq);
        logs.events.push(JSON.stringify({ msg: `${ts}/${seq}` }));
        logs.owners.push(0);
        logs.indexes.push(logs.indexes.length);
      }
      return { logs, all: logs.seqs.map((_, i) => i) };
    };
    const ids = async (task: string) =>
      (await pipeline.client.logEntries(task))
        .map((e) => e.id)
        .sort(
          (a, b) =>
            Number(a.split('-')[0]) - Number(b.split('-')[0]) || Number(a.split('-')[1]) - Number(b.split('-')[1]),
        );

    it('keeps the newest lines up to the count, across segments, oldest first out', async () => {
      const task = unique('t');
      const appender = appenderWith(4, 0);
      const first = batch([
        [100, 1],
        [200, 2],
        [300, 3],
      ]);
      await appender.append(task, first.logs, first.all, false);
      // Older lines than the top open a second segment; the five oldest of the merged order go.
      const second = batch([
        [50, 4],
        [150, 5],
        [400, 6],
        [500, 7],
        [250, 8],
      ]);
      await appender.append(task, second.logs, second.all, false);
      expect(await ids(task)).toEqual(['250-8', '300-3', '400-6', '500-7']);
    });

    it('drops lines older than the age limit, by their timestamp, when the task receives lines', async () => {
      const task = unique('t');
      const appender = appenderWith(0, 5_000, () => 10_000);
      const lines = batch([
        [1_000, 1],
        [4_999, 2],
        [5_000, 3],
        [9_000, 4],
      ]);
      await appender.append(task, lines.logs, lines.all, false);
      expect(await ids(task)).toEqual(['5000-3', '9000-4']);
    });

    it('keeps everything by default', async () => {
      const task = unique('t');
      const appender = new LogSegmentAppender(pipeline.client.redis as never, pipeline.harness.config.REDIS_KEY_PREFIX);
      const lines = batch(Array.from({ length: 50 }, (_, i): [number, number] => [i, i + 1]));
      await appender.append(task, lines.logs, lines.all, false);
      expect(await ids(task)).toHaveLength(50);
    });
  });
});
