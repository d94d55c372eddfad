// Inspecting and replaying dead letters (docs/operations.md): a record dead-lettered for a
// cause that is then fixed is stored by its replay; one whose cause remains comes back.
import { describe, expect, it } from 'vitest';
import { runDeadLetterCommand } from '../../ingest/writer/dead-letter-cli.js';
import { DeadLetterAdmin } from '../../ingest/writer/dead-letter-admin.js';
import { unique } from '../harness/service-harness.js';
import { writerPipeline } from './writer-fixtures.js';
import { eventually } from '../harness/eventually.js';

const pipeline = writerPipeline();

async function run(...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const { client } = pipeline;
  const admin = new DeadLetterAdmin(client.nc, client.jsm, {
    streamPrefix: client.config.NATS_STREAM_PREFIX,
    partitions: client.config.NATS_PARTITIONS,
  });
  const lines: string[] = [];
  const code = await runDeadLetterCommand(argv, admin, (line) => lines.push(...line.split('\n')));
  return { code, lines };
}

const rowsOf = async (company: string) =>
  (await run('list')).lines
    .slice(1)
    .map((line) => line.split('\t'))
    .filter((row) => row[5] === company);

describe('dead-letter CLI', () => {
  it('lists and shows a dead letter, and its replay stores the record once the cause is fixed', async () => {
    const { client } = pipeline;
    const company = unique('co-');
    const task = unique('t');
    const lastMetrics = client.keys.lastMetrics(company, 't', task);
    await client.redis.set(lastMetrics, 'in the way');
    await client.publishRequest(company, [
      { type: 'training_stats_scalar', entity: task, metric: 'loss', variant: 'v', iter: 3, value: 0.5 },
    ]);
    await client.drained();

    const rows = await rowsOf(company);
    expect(rows).toHaveLength(1);
    const [seq, deadAt, partition, , record, , reason, detail] = rows[0]!;
    expect(reason).toBe('redis_wrongtype');
    expect(record).toBe('1');
    expect(detail).toMatch(/WRONGTYPE/);
    expect(Number.isNaN(Date.parse(deadAt!))).toBe(false);
    expect(Number(partition)).toBeGreaterThanOrEqual(0);

    const shown = await run('show', seq!);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.lines.join('\n'))).toMatchObject({
      seq: Number(seq),
      reason: 'redis_wrongtype',
      company,
      record: { kind: 'R', body: { e: task, c: company } },
    });

    await client.redis.del(lastMetrics);
    const replayed = await run('replay', seq!);
    expect(replayed.code).toBe(0);
    expect(replayed.lines.at(-1)).toBe('replayed 1 of 1');
    await client.drained();
    expect(JSON.parse((await client.redis.hGet(lastMetrics, JSON.stringify(['loss', 'v'])))!)).toMatchObject({
      value: 0.5,
      count: 1,
      iter: 3,
    });
    expect(await rowsOf(company)).toEqual([]);
    expect((await run('show', seq!)).code).toBe(1);
  });

  it('replay --all --reason replays only that reason; a record whose cause remains is dead-lettered again', async () => {
    const { client } = pipeline;
    const company = unique('co-');
    const task = unique('t');
    await client.redis.hSet(client.keys.logSegment(task, 0), 'x', '1');
    await client.publishRequest(company, [
      { type: 'log', entity: task, timestamp: 1e20, msg: 'no id for it' },
      { type: 'log', entity: task, timestamp: 1_000, msg: 'wrong key type' },
    ]);
    await client.drained();
    const before = await rowsOf(company);
    expect(before.map((row) => row[6]).sort()).toEqual(['invalid_log_id', 'redis_wrongtype']);

    await client.redis.del(client.keys.logSegment(task, 0));
    const replayed = await run('replay', '--all', '--reason', 'redis_wrongtype');
    expect(
      replayed.lines.filter((line) => line.startsWith('replayed ') && line.includes('partition')),
    ).not.toHaveLength(0);
    await client.drained();
    expect((await client.logEntries(task)).map((e) => e.event.msg)).toEqual(['wrong key type']);
    // The letter of the other reason stays; replaying it does not fix its cause: it comes back, once.
    const left = await rowsOf(company);
    expect(left.map((row) => row[6])).toEqual(['invalid_log_id']);
    await run('replay', left[0]![0]!);
    await client.drained();
    await eventually(async () => (await rowsOf(company)).length === 1, undefined);
    const again = await rowsOf(company);
    expect(again[0]![6]).toBe('invalid_log_id');
    expect(Number(again[0]![0])).toBeGreaterThan(Number(left[0]![0]));
  });

  it('answers usage errors with exit code 2', async () => {
    expect((await run()).code).toBe(2);
    expect((await run('replay')).code).toBe(2);
    expect((await run('replay', '--all', '7')).code).toBe(2);
    expect((await run('show', 'x')).code).toBe(2);
    expect((await run('list', '--limit')).code).toBe(2);
  });
});
