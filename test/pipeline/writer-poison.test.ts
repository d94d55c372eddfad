// Events that passed ingest but that a store refuses for good (issue 10, item 3): each is
// dead-lettered alone, with its reason; its sibling records and the events queued behind it
// in the partition (another company's included) are stored, and the partition drains.
import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_HEADERS } from '../../ingest/writer/dead-letters.js';
import { decodeRecords, partitionOf } from '../../shared/events/wire-format.js';
import { unique } from '../harness/service-harness.js';
import { logRecord, scalarRecord, summaryRecord, writerPipeline, type EventSpec } from './writer-fixtures.js';

const pipeline = writerPipeline();

const COMPANY = 'company-a';
const OTHER_COMPANY = 'company-b';

/** A task id of the other company that hashes to the same partition as `task`. */
function neighbourOf(task: string): string {
  const partitions = pipeline.client.config.NATS_PARTITIONS;
  for (;;) {
    const id = unique('n');
    if (partitionOf('t', id, partitions) === partitionOf('t', task, partitions)) return id;
  }
}

async function deadLetterCount(reason: string): Promise<number> {
  const metric = await pipeline.harness.service.services.metrics
    .getSingleMetric('clearml_writer_dead_letters_total')
    ?.get();
  return (metric?.values ?? []).filter((v) => v.labels.reason === reason).reduce((sum, v) => sum + v.value, 0);
}

const scalar = (entity: string, metric: string, iter: number, value: number): EventSpec => ({
  type: 'training_stats_scalar',
  entity,
  metric,
  variant: 'v',
  iter,
  value,
});
const log = (entity: string, timestamp: number, msg: string): EventSpec => ({
  type: 'log',
  entity,
  timestamp,
  msg,
  level: 'info',
});

async function lastMetric(
  task: string,
  metric: string,
  company = COMPANY,
): Promise<Record<string, unknown> | undefined> {
  const text = await pipeline.client.redis.hGet(
    pipeline.client.keys.lastMetrics(company, 't', task),
    JSON.stringify([metric, 'v']),
  );
  return text === null || text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

/**
 * Publishes the poison request, then a request of another company to the same partition,
 * waits for every partition to drain, and checks that the other company's events are stored.
 */
async function publishWithNeighbour(task: string, events: EventSpec[]): Promise<number> {
  const [seq] = await pipeline.client.publishRequest(COMPANY, events);
  const neighbour = neighbourOf(task);
  await pipeline.client.publishRequest(OTHER_COMPANY, [
    scalar(neighbour, 'loss', 1, 0.25),
    log(neighbour, 1_000, 'neighbour line'),
  ]);
  await pipeline.client.drained();
  expect(await pipeline.client.count('scalar', neighbour)).toBe(1);
  expect((await pipeline.client.logEntries(neighbour)).map((e) => e.event.msg)).toEqual(['neighbour line']);
  expect(await lastMetric(neighbour, 'loss', OTHER_COMPANY)).toMatchObject({ value: 0.25, count: 1 });
  return seq!;
}

async function lettersOf(streamSeq: number) {
  return (await pipeline.client.deadLetters()).filter(
    (l) => l.header(DEAD_LETTER_HEADERS.streamSeq) === String(streamSeq),
  );
}

/** The one dead letter of the message: its reason, record index, company, and the single record it carries. */
async function expectOneLetter(streamSeq: number, reason: string, recordIndex: number, kind: 'I' | 'L' | 'R') {
  const letters = await lettersOf(streamSeq);
  expect(letters).toHaveLength(1);
  const letter = letters[0]!;
  expect(letter.header(DEAD_LETTER_HEADERS.reason)).toBe(reason);
  expect(letter.header(DEAD_LETTER_HEADERS.recordIndex)).toBe(String(recordIndex));
  expect(letter.header(DEAD_LETTER_HEADERS.company)).toBe(COMPANY);
  expect(Number(letter.header(DEAD_LETTER_HEADERS.partition))).toBeGreaterThanOrEqual(0);
  expect(letter.header('k')).toBe('ev');
  const records = [...decodeRecords(letter.data)];
  expect(records).toHaveLength(1);
  expect(records[0]!.kind).toBe(kind);
  return { letter, body: records[0]!.body };
}

describe('poison records', () => {
  it('a log line whose timestamp no stream id can hold is dead-lettered alone', async () => {
    const task = unique('t');
    const before = await deadLetterCount('invalid_log_id');
    const seq = await publishWithNeighbour(task, [
      scalar(task, 'loss', 1, 0.5),
      log(task, 1_000, 'before'),
      log(task, 1e20, 'poison'),
      log(task, 2_000, 'after'),
    ]);
    expect(await pipeline.client.count('scalar', task)).toBe(1);
    expect((await pipeline.client.logEntries(task)).map((e) => e.event.msg)).toEqual(['before', 'after']);
    expect(await lastMetric(task, 'loss')).toMatchObject({ value: 0.5 });
    const { letter, body } = await expectOneLetter(seq, 'invalid_log_id', 2, 'L');
    // A log record: [company, task, timestamp] on its first line, the stored event after it (wire-format.ts).
    const lineEnd = body.indexOf('\n');
    expect(JSON.parse(body.slice(0, lineEnd))).toEqual([COMPANY, task, 1e20]);
    expect(body.slice(lineEnd + 1)).toContain('"poison"');
    expect(letter.header(DEAD_LETTER_HEADERS.detail)).toMatch(/timestamp/);
    expect(await deadLetterCount('invalid_log_id')).toBe(before + 1);
  });

  it('scalars near the largest double are summarised without overflow (nothing to dead-letter)', async () => {
    const task = unique('t');
    const first = await publishWithNeighbour(task, [
      scalar(task, 'loss', 1, 1e308),
      scalar(task, 'loss', 2, 1e308),
      scalar(task, 'acc', 1, 0.5),
    ]);
    const second = await publishWithNeighbour(task, [scalar(task, 'loss', 3, 1e308), scalar(task, 'loss', 4, -1e308)]);
    expect(await pipeline.client.count('scalar', task)).toBe(5);
    const loss = await lastMetric(task, 'loss');
    expect(loss).toMatchObject({ count: 4, max_value: 1e308, min_value: -1e308, value: -1e308, first_value: 1e308 });
    expect(loss!.mean_value).toBeCloseTo(0.5e308, -300);
    expect(Number.isFinite(loss!.mean_value)).toBe(true);
    expect(await lastMetric(task, 'acc')).toMatchObject({ count: 1, mean_value: 0.5 });
    expect([...(await lettersOf(first)), ...(await lettersOf(second))]).toEqual([]);
  });

  it('a summary whose last_metrics key holds another type (WRONGTYPE) is dead-lettered alone', async () => {
    const task = unique('t');
    await pipeline.client.redis.set(pipeline.client.keys.lastMetrics(COMPANY, 't', task), 'not a hash');
    const before = await deadLetterCount('redis_wrongtype');
    const seq = await publishWithNeighbour(task, [scalar(task, 'loss', 1, 0.5), log(task, 1_000, 'kept')]);
    expect(await pipeline.client.count('scalar', task)).toBe(1);
    expect((await pipeline.client.logEntries(task)).map((e) => e.event.msg)).toEqual(['kept']);
    const { letter, body } = await expectOneLetter(seq, 'redis_wrongtype', 2, 'R');
    expect(JSON.parse(body)).toMatchObject({ e: task, c: COMPANY });
    expect(letter.header(DEAD_LETTER_HEADERS.detail)).toMatch(/WRONGTYPE/);
    expect(await deadLetterCount('redis_wrongtype')).toBe(before + 1);
  });

  it('a log line whose stream key holds another type (WRONGTYPE) is dead-lettered alone', async () => {
    const task = unique('t');
    await pipeline.client.redis.hSet(pipeline.client.keys.logSegment(task, 0), 'x', '1');
    const before = await deadLetterCount('redis_wrongtype');
    const seq = await publishWithNeighbour(task, [
      scalar(task, 'loss', 1, 0.5),
      log(task, 1_000, 'poison'),
      scalar(task, 'loss', 2, 0.75),
    ]);
    expect(await pipeline.client.count('scalar', task)).toBe(2);
    expect(await lastMetric(task, 'loss')).toMatchObject({ value: 0.75, count: 2 });
    await expectOneLetter(seq, 'redis_wrongtype', 1, 'L');
    expect(await deadLetterCount('redis_wrongtype')).toBe(before + 1);
  });

  it('a point InfluxDB refuses (series key too long) is dead-lettered alone', async () => {
    const task = unique('t');
    const before = await deadLetterCount('influx_rejected');
    const seq = await publishWithNeighbour(task, [
      scalar(task, 'loss', 1, 0.5),
      scalar(task, 'x'.repeat(70_000), 1, 1),
      scalar(task, 'loss', 2, 0.75),
      log(task, 1_000, 'kept'),
    ]);
    expect((await pipeline.client.points('scalar', task)).map((p) => p.y)).toEqual([0.5, 0.75]);
    expect((await pipeline.client.logEntries(task)).map((e) => e.event.msg)).toEqual(['kept']);
    expect(await lastMetric(task, 'loss')).toMatchObject({ value: 0.75, count: 2 });
    const { letter, body } = await expectOneLetter(seq, 'influx_rejected', 1, 'I');
    expect(body).toContain('x'.repeat(70_000));
    expect(letter.header(DEAD_LETTER_HEADERS.detail)).toMatch(/max key length/);
    expect(await deadLetterCount('influx_rejected')).toBe(before + 1);
  });

  it('a summary record of the wrong shape is dead-lettered alone (undecodable)', async () => {
    const task = unique('t');
    const before = await deadLetterCount('undecodable');
    const bad = summaryRecord({
      c: COMPANY,
      n: 't',
      e: task,
      u: 'u',
      at: 1,
      scalars: [{ metric: 'loss', variant: 'v', value: null } as never],
      listing: [],
    });
    const good = scalarRecord(task, 'loss', 'v', 1, 0.5, { company: COMPANY });
    const seq = await pipeline.client.publish(task, [good, bad, logRecord(task, 1_000, 'kept', {}, COMPANY)], {
      headers: { k: 'ev', v: '1' },
    });
    const neighbour = neighbourOf(task);
    await pipeline.client.publishRequest(OTHER_COMPANY, [scalar(neighbour, 'loss', 1, 0.25)]);
    await pipeline.client.drained();
    expect(await pipeline.client.count('scalar', task)).toBe(1);
    expect((await pipeline.client.logEntries(task)).map((e) => e.event.msg)).toEqual(['kept']);
    expect(await lastMetric(task, 'loss')).toBeUndefined();
    expect(await pipeline.client.count('scalar', neighbour)).toBe(1);
    const { letter } = await expectOneLetter(seq, 'undecodable', 1, 'R');
    expect(letter.header(DEAD_LETTER_HEADERS.detail)).toMatch(/scalar 0 value is not a finite number/);
    expect(await deadLetterCount('undecodable')).toBe(before + 1);
  });

  it('a message of an unknown wire version is dead-lettered whole, and none of its records is stored', async () => {
    const task = unique('t');
    const seq = await pipeline.client.publish(task, [scalarRecord(task, 'loss', 'v', 1, 0.5, { company: COMPANY })], {
      headers: { k: 'ev', v: '99' },
    });
    const neighbour = neighbourOf(task);
    await pipeline.client.publishRequest(OTHER_COMPANY, [scalar(neighbour, 'loss', 1, 0.25)]);
    await pipeline.client.drained();
    expect(await pipeline.client.count('scalar', task)).toBe(0);
    expect(await pipeline.client.count('scalar', neighbour)).toBe(1);
    const letters = await lettersOf(seq);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.header(DEAD_LETTER_HEADERS.reason)).toBe('undecodable');
    expect(letters[0]!.header(DEAD_LETTER_HEADERS.recordIndex)).toBeUndefined();
    expect(letters[0]!.header(DEAD_LETTER_HEADERS.detail)).toMatch(/unknown wire version 99/);
  });

  it('a deletion a store refuses (WRONGTYPE) is dead-lettered, and the partition goes on', async () => {
    const task = unique('t');
    await pipeline.client.redis.hSet(pipeline.client.keys.logSegment(task, 0), 'x', '1');
    const seq = await pipeline.client.publishControl({ op: 'clear_task_log', c: COMPANY, e: task, id: unique('ctl') });
    const neighbour = neighbourOf(task);
    await pipeline.client.publishRequest(OTHER_COMPANY, [scalar(neighbour, 'loss', 1, 0.25)]);
    await pipeline.client.drained();
    expect(await pipeline.client.count('scalar', neighbour)).toBe(1);
    const letters = await lettersOf(seq);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.header(DEAD_LETTER_HEADERS.reason)).toBe('redis_wrongtype');
    expect(letters[0]!.header('k')).toBe('ctl');
  });
});
