/**
 * Pages of scalar_metrics_iter_raw (events.md §4.3): the points of one
 * metric (some variants) after an x position, x ascending, ties by
 * timestamp then arrival, and a value of x never split across pages.
 *
 * key=iter: x is the point time, so InfluxDB orders and limits: `time > p
 * ORDER BY time LIMIT batch + variants` covers the page and the rest of its
 * last iteration (one point per series and iteration); a full answer whose
 * last row is still that iteration is completed by a `time = x` read. Read
 * as CSV bytes (raw-page-csv.ts): JSON.parse of a 200k-row answer was most
 * of what the page cost beyond InfluxDB, then reading and writing its y
 * values again. The page stays in columns (x, y as references to its JSON
 * text, variant), grouped by variant for the answer without an object per
 * point; ts and q, which only order the variants whose first points share
 * an x, are read from those rows alone (raw-point-order.ts seriesOfPage).
 *
 * key=timestamp/iso_time: x is the `ts` field, which InfluxDB cannot order
 * by. Each variant's points with `ts > p` are read (CSV, one request per
 * variant) and merged here; they come in iteration order, which is also
 * timestamp order for nearly every series (checked, sorted when not), so the
 * merge is linear. The cost is the rest of the selection, not the page
 * (docs/events-read.md).
 */
import type { InfluxStore } from '../../../shared/stores/influx-store.js';
import { mapLimited } from '../common/map-limited.js';
import type { InfluxCsvReader } from './influx-csv.js';
import { JsonNumberLists, RawPageCsvParser, type RawPageColumns } from './raw-page-csv.js';
import { seriesOf } from './influx-rows.js';
import { allOf, entityWhere, HAS_ITER, tagEquals, timeCompare, type EntityRef } from './influx-where.js';
import { TAG } from '../../../shared/events/storage-layout.js';
import {
  byXThenArrival,
  isSorted,
  mergeSorted,
  pageLength,
  type RawColumns,
  type RawPoint,
} from '../scalars/raw-point-order.js';

export type { RawColumns, RawPoint };

export interface RawSelection {
  ref: EntityRef;
  metric: string;
  /** The variants to read (already resolved against the listing). */
  variants: readonly string[];
  /** Restrict to these variants in InfluxQL (false when every variant of the metric is wanted). */
  filterVariants: boolean;
}

function selectionWhere(s: RawSelection): string {
  const variants = s.filterVariants ? `(${s.variants.map((v) => tagEquals(TAG.variant, v)).join(' OR ')})` : undefined;
  return allOf(entityWhere(s.ref), tagEquals(TAG.metric, s.metric), variants);
}

/**
 * The page as columns (x ascending, the ties of an x unordered: raw-point-order.ts seriesOfPage orders
 * what they decide); its y are references to `values`, which writes them into the answer.
 */
export async function iterPage(
  csv: InfluxCsvReader,
  s: RawSelection,
  after: number | null,
  batch: number,
): Promise<{ columns: RawColumns; values: JsonNumberLists }> {
  const values = new JsonNumberLists();
  if (s.variants.length === 0) return { columns: NO_COLUMNS, values };
  const where = allOf(selectionWhere(s), HAS_ITER, after === null ? undefined : timeCompare('>', after));
  const limit = batch + s.variants.length;
  let rows = await pointColumns(
    csv,
    values,
    `SELECT "y", "ts", "q", "v" FROM "scalar" WHERE ${where} ORDER BY time ASC LIMIT ${limit}`,
  );
  if (rows.length === limit) {
    // The listing may lag the points by a moment: never trust it to bound an iteration.
    const lastX = rows.x[rows.length - 1]!;
    const rest = await pointColumns(
      csv,
      values,
      `SELECT "y", "ts", "q", "v" FROM "scalar" WHERE ${allOf(selectionWhere(s), timeCompare('=', lastX))}`,
    );
    rows = joined(rows, rows.x.indexOf(lastX), rest);
  }
  return { columns: prefix(rows, pageLength(rows.x, batch)), values };
}

const NO_COLUMNS: RawColumns = { length: 0, x: [], y: [], variant: [], arrival: () => ({ ts: 0, seq: 0 }) };

/** The rows of a statement selecting y, ts, q and v, their y kept in `values`. */
async function pointColumns(csv: InfluxCsvReader, values: JsonNumberLists, statement: string): Promise<RawPageColumns> {
  return (await csv.parsed(statement, () => new RawPageCsvParser(values))).rows;
}

/** The first `cut` rows of `head`, then every row of `tail`. */
function joined(head: RawPageColumns, cut: number, tail: RawPageColumns): RawPageColumns {
  const concat = (a: Float64Array, b: Float64Array) => {
    const out = new Float64Array(cut + b.length);
    out.set(a.subarray(0, cut));
    out.set(b, cut);
    return out;
  };
  return {
    length: cut + tail.length,
    x: concat(head.x, tail.x),
    y: concat(head.y, tail.y),
    variant: [...head.variant.slice(0, cut), ...tail.variant],
    arrival: (i) => (i < cut ? head.arrival(i) : tail.arrival(i - cut)),
  };
}

function prefix(rows: RawPageColumns, length: number): RawPageColumns {
  if (length === rows.length) return rows;
  return {
    length,
    x: rows.x.subarray(0, length),
    y: rows.y.subarray(0, length),
    variant: rows.variant.slice(0, length),
    arrival: (i) => rows.arrival(i),
  };
}

/** Concurrent variant reads (two InfluxDB cores). */
const VARIANT_CONCURRENCY = 3;

export async function timestampPage(
  csv: InfluxCsvReader,
  s: RawSelection,
  after: number | null,
  batch: number,
): Promise<RawPoint[]> {
  const perVariant = await mapLimited(s.variants, VARIANT_CONCURRENCY, async (variant) => {
    const where = allOf(
      entityWhere(s.ref),
      tagEquals(TAG.metric, s.metric),
      tagEquals(TAG.variant, variant),
      after === null ? undefined : `"ts" > ${after}`,
    );
    const [ts, y, q] = await csv.numericColumns(`SELECT "ts", "y", "q" FROM "scalar" WHERE ${where}`, ['ts', 'y', 'q']);
    const points: RawPoint[] = new Array(ts!.length);
    for (let i = 0; i < ts!.length; i++) points[i] = { variant, x: ts![i]!, y: y![i]!, ts: ts![i]!, seq: q![i]! };
    if (!isSorted(points)) points.sort(byXThenArrival);
    return points;
  });
  return mergeSorted(perVariant, batch);
}

/** The exact number of selected points (`count_total`). */
export async function countSelection(influx: InfluxStore, s: RawSelection, key: 'iter' | 'timestamp'): Promise<number> {
  if (s.variants.length === 0) return 0;
  const where = allOf(selectionWhere(s), key === 'iter' ? HAS_ITER : undefined);
  const series = seriesOf(await influx.query(`SELECT COUNT("y") FROM "scalar" WHERE ${where}`))[0];
  return Number(series?.values[0]?.[1] ?? 0);
}
