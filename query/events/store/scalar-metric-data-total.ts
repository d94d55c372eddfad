/**
 * The `total` of events.get_scalar_metric_data (events.md §4.4): the
 * metric's events, capped at 10,000, computed on the first call.
 *
 * Counting through a subquery (`COUNT` of `SELECT ... LIMIT 10000`) moves
 * every point through InfluxDB's query engine, ~0.4 µs a point; a `COUNT`
 * over a time range is counted inside the storage engine, ~0.1 µs a point.
 * The first page, read newest first, tells how many iterations hold its
 * rows, so a range that holds about 10,000 points at that density is
 * counted by the engine, and only what it misses below it goes through a
 * subquery capped at the remainder. A metric that fits its first read is
 * not counted at all.
 */
import type { InfluxStore } from '../../../shared/stores/influx-store.js';
import { seriesOf } from './influx-rows.js';
import { allOf, timeCompare } from './influx-where.js';
import type { SequencedEvent } from './stored-events.js';

export const METRIC_DATA_TOTAL_CAP = 10_000;
/** The range is sized for this many points at the page's density (sparser older data then rarely needs the subquery). */
const RANGE_MARGIN = 1.1;
/**
 * At most this many points per variant's share of the cap may fall in the range: a
 * page sparser than the older points would otherwise size a range holding far more
 * than the cap (each series holds at most one point per iteration).
 */
const RANGE_POINTS_PER_CAP = 2;

/**
 * `firstRead`: the rows of the first page's read, newest first (time
 * descending), and whether that read holds every event of the metric.
 */
export async function metricDataTotal(
  influx: InfluxStore,
  where: string,
  firstRead: { rows: readonly SequencedEvent[]; complete: boolean },
  variants: number,
): Promise<number> {
  const { rows, complete } = firstRead;
  if (complete) return Math.min(rows.length, METRIC_DATA_TOTAL_CAP);
  const newest = rows[0]?.iter;
  const oldest = rows[rows.length - 1]?.iter;
  if (newest === undefined || oldest === undefined) return cappedCount(influx, where, METRIC_DATA_TOTAL_CAP);
  const span = newest - oldest + 1;
  const sized = Math.ceil((span * METRIC_DATA_TOTAL_CAP * RANGE_MARGIN) / rows.length);
  const range = Math.max(
    1,
    Math.min(sized, Math.floor((RANGE_POINTS_PER_CAP * METRIC_DATA_TOTAL_CAP) / Math.max(1, variants))),
  );
  const from = newest - range + 1;
  if (!Number.isSafeInteger(newest) || !Number.isSafeInteger(from))
    return cappedCount(influx, where, METRIC_DATA_TOTAL_CAP);
  const inRange = await count(influx, `SELECT COUNT("y") FROM "scalar" WHERE ${allOf(where, timeCompare('>=', from))}`);
  if (inRange >= METRIC_DATA_TOTAL_CAP) return METRIC_DATA_TOTAL_CAP;
  return inRange + (await cappedCount(influx, allOf(where, timeCompare('<', from)), METRIC_DATA_TOTAL_CAP - inRange));
}

function cappedCount(influx: InfluxStore, where: string, cap: number): Promise<number> {
  return count(influx, `SELECT COUNT("y") FROM (SELECT "y" FROM "scalar" WHERE ${where} LIMIT ${cap})`);
}

async function count(influx: InfluxStore, statement: string): Promise<number> {
  return Number(seriesOf(await influx.query(statement))[0]?.values[0]?.[1] ?? 0);
}
