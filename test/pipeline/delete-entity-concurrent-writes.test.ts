// delete_entity (events.md §6.3) while other writers create series: an entity's deletion never
// costs another entity its points, even when the deleted entity held the last series of a
// measurement in a shard (docs/storage.md, "Deleting an entity").
import { describe, expect, it } from 'vitest';
import { decodeRecords } from '../../shared/events/wire-format.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { ControlExecutor } from '../../ingest/writer/control-executor.js';
import { unique } from '../harness/service-harness.js';
import { eventRecord, scalarRecord, writerPipeline } from './writer-fixtures.js';

const pipeline = writerPipeline();
const LANES = 4;
/** Unanchored, 10% of rounds lost points (400 rounds, twice): 80 rounds all pass by chance 2 times in 10,000. */
const ROUNDS = 20;

/** The store the deletion runs on: the real one, that lets the test write while its DROP SERIES is on its way. */
class DropWatchingStore extends InfluxStore {
  onDrop: () => void = () => undefined;
  override query(text: string, options?: Parameters<InfluxStore['query']>[1]) {
    if (text.startsWith('DROP SERIES')) this.onDrop();
    return super.query(text, options);
  }
}

/** Iterations in three shards of InfluxDB's default 7-day groups: none (the earliest time), small, and 2^52. */
const ITERATIONS = [undefined, 2, 2 ** 52];

/** The line protocol the writer stores for an entity: a scalar and a debug image at each of ITERATIONS (production-encoded). */
function linesOf(entity: string): string {
  const records = ITERATIONS.flatMap((iter) => [
    scalarRecord(entity, 'm', 'v', iter, 1),
    eventRecord({ type: 'training_debug_image', entity, metric: 'img', variant: 'v', iter, url: 'x' }),
  ]);
  return records.map((r) => [...decodeRecords(r)].map((d) => `${d.body}\n`).join('')).join('');
}

/** The entity's points in both measurements. */
async function pointCount(influx: InfluxStore, entity: string): Promise<number> {
  const results = await influx.query(
    ['scalar', 'image'].map((m) => `SELECT COUNT("ts") FROM "${m}" WHERE "e"='${entity}'`).join('; '),
  );
  return results.reduce((sum, r) => sum + Number(r.series?.[0]?.values[0]?.[1] ?? 0), 0);
}

/**
 * One round in a database of its own, so that the deleted entity holds the only series of its
 * measurements: its deletion races with the first series another writer creates there.
 */
async function round(database: string): Promise<number> {
  const { config } = pipeline.harness;
  const influx = new DropWatchingStore({ url: config.INFLUX_URL, database });
  await influx.ensureDatabase();
  const executor = new ControlExecutor(influx, pipeline.client.redis, pipeline.client.nc, config.REDIS_KEY_PREFIX);
  const [task, other] = [unique('t'), unique('t')];
  await influx.write(linesOf(task));
  let written: Promise<void> | undefined;
  // The other entity's first series arrives while InfluxDB drops the task's, a little later each round.
  influx.onDrop = () =>
    (written = new Promise((resolve) => setTimeout(resolve, Math.random() * 3)).then(() =>
      influx.write(linesOf(other)),
    ));
  expect(await executor.execute({ op: 'delete_entity', c: 'co', n: 't', e: task, id: unique('ctl') })).toBe(
    2 * ITERATIONS.length,
  );
  await written;
  expect(await pointCount(influx, task)).toBe(0);
  return pointCount(influx, other);
}

const dbName = (lane: number, r: number) => `${pipeline.harness.config.INFLUX_DB}_race${lane}_${r}`;

describe('delete_entity with concurrent writes', () => {
  it("keeps every point another entity wrote meanwhile, in 80 rounds (InfluxDB's empty-measurement drop races with new series)", async () => {
    const counts = await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        const found: number[] = [];
        for (let r = 0; r < ROUNDS; r++) found.push(await round(dbName(lane, r)));
        return found;
      }),
    );
    // Dropped once every round is over: InfluxDB 1.6 fails a DROP SERIES that runs while another database is dropped.
    for (let lane = 0; lane < LANES; lane++)
      for (let r = 0; r < ROUNDS; r++)
        await new InfluxStore({ url: pipeline.harness.config.INFLUX_URL, database: dbName(lane, r) }).query(
          `DROP DATABASE "${dbName(lane, r)}"`,
          { method: 'POST' },
        );
    expect(counts.flat().filter((c) => c !== 2 * ITERATIONS.length)).toEqual([]);
  }, 240_000);
});
