/**
 * Scalar histograms with key=iter (events.md §4.1), computed by InfluxDB:
 * the point time is the iteration, so a bucket is `GROUP BY time(<interval>ns)`.
 *
 * Round trip 1 (three cheap statements): FIRST and LAST give each series'
 * smallest and greatest iteration by reading one point each; `LIMIT 1
 * OFFSET samples-1` tells whether a series has at least `samples` points by
 * reading at most that many. That is all the interval rule needs: a series
 * with fewer points has interval 1 whatever its count, and interval-1
 * series never share a group with longer intervals (a group started by
 * interval 1 has upper bound 1), so their exact counts cannot change
 * anyone's interval. No COUNT over the series is ever needed.
 *
 * Round trip 2 (in parallel): the raw points of the interval-1 series (one
 * point per iteration, so the mean of a bucket is the value), and one
 * MEAN (plus MIN and MAX with the extension) per distinct interval, bounded
 * by the first and last iteration of its series.
 */
import {
  bucketMeans,
  groupedSeriesIntervals,
  type BucketedSeries,
  type SeriesStats,
} from '../scalars/histogram-intervals.js';
import { InfluxUnencodableAnswer, type InfluxResult, type InfluxStore } from '../../../shared/stores/influx-store.js';
import { columnIndex, seriesKey, seriesName, seriesOf } from './influx-rows.js';
import {
  allOf,
  entityWhere,
  REGULAR_ITER,
  seriesWhere,
  timeCompare,
  type EntityRef,
  type SeriesName,
} from './influx-where.js';

export interface HistogramSeries extends SeriesName, BucketedSeries {}

interface Probe extends SeriesStats {
  /** Has at least `samples` points. */
  long: boolean;
}

/** The histogram of the given series (all with regular iterations), keyed by seriesKey. */
export async function iterHistogram(
  influx: InfluxStore,
  ref: EntityRef,
  series: readonly SeriesName[],
  /** Selects exactly `series` within the entity; undefined when they are all of its scalar series. */
  seriesCondition: string | undefined,
  samples: number,
  minMax: boolean,
): Promise<HistogramSeries[]> {
  if (series.length === 0) return [];
  const where = allOf(entityWhere(ref), seriesCondition, REGULAR_ITER);
  if (samples === 0) return rawSeries(influx, where, minMax);

  const probes = await probeSeries(influx, where, samples);
  const intervals = groupedSeriesIntervals([...probes.values()], samples);
  const rawOnes: Probe[] = [];
  const byInterval = new Map<number, Probe[]>();
  for (const [probe, interval] of intervals) {
    if (interval === 1) rawOnes.push(probe);
    else byInterval.set(interval, [...(byInterval.get(interval) ?? []), probe]);
  }
  const parts: Array<Promise<HistogramSeries[]>> = [];
  if (rawOnes.length > 0) {
    const condition =
      rawOnes.length === probes.size ? where : allOf(entityWhere(ref), seriesWhere(rawOnes), REGULAR_ITER);
    parts.push(rawSeries(influx, condition, minMax));
  }
  for (const [interval, members] of byInterval) parts.push(bucketedSeries(influx, ref, members, interval, minMax));
  return (await Promise.all(parts)).flat();
}

async function probeSeries(influx: InfluxStore, where: string, samples: number): Promise<Map<string, Probe>> {
  const results = await influx.query(
    [
      `SELECT FIRST("y") FROM "scalar" WHERE ${where} GROUP BY "m", "v"`,
      `SELECT LAST("y") FROM "scalar" WHERE ${where} GROUP BY "m", "v"`,
      `SELECT "y" FROM "scalar" WHERE ${where} GROUP BY "m", "v" LIMIT 1 OFFSET ${samples - 1}`,
    ].join('; '),
  );
  const probes = new Map<string, Probe>();
  for (const s of seriesOf(results, 0)) {
    const name = seriesName(s);
    const minX = s.values[0]![0] as number;
    // Until LAST says otherwise: a series of one point.
    probes.set(seriesKey(name), { ...name, minX, maxX: minX, count: samples - 1, long: false });
  }
  for (const s of seriesOf(results, 1)) {
    const probe = probes.get(seriesKey(seriesName(s)));
    if (probe) probes.set(seriesKey(probe), { ...probe, maxX: s.values[0]![0] as number });
  }
  for (const s of seriesOf(results, 2)) {
    const probe = probes.get(seriesKey(seriesName(s)));
    // The exact count of a long series does not matter: only "at least samples".
    if (probe) probes.set(seriesKey(probe), { ...probe, count: samples, long: true });
  }
  return probes;
}

/** Every point of the selected series: x = iteration, y = value. */
async function rawSeries(influx: InfluxStore, where: string, minMax: boolean): Promise<HistogramSeries[]> {
  const results = await influx.query(`SELECT "y" FROM "scalar" WHERE ${where} GROUP BY "m", "v"`);
  return seriesOf(results).map((s) => {
    const y = columnIndex(s, 'y');
    const out: HistogramSeries = {
      ...seriesName(s),
      x: s.values.map((row) => row[0] as number),
      y: s.values.map((row) => row[y] as number),
    };
    if (minMax) {
      out.min = out.y;
      out.max = out.y;
    }
    return out;
  });
}

async function bucketedSeries(
  influx: InfluxStore,
  ref: EntityRef,
  members: readonly Probe[],
  interval: number,
  minMax: boolean,
): Promise<HistogramSeries[]> {
  const lo = Math.min(...members.map((m) => m.minX));
  const hi = Math.max(...members.map((m) => m.maxX));
  const where = allOf(
    entityWhere(ref),
    seriesWhere(members),
    timeCompare('>=', lo),
    timeCompare('<=', hi),
    REGULAR_ITER,
  );
  const select = minMax ? 'MEAN("y"), MIN("y"), MAX("y")' : 'MEAN("y")';
  let results: InfluxResult[];
  try {
    results = await influx.query(
      `SELECT ${select} FROM "scalar" WHERE ${where} GROUP BY time(${interval}ns), "m", "v" fill(none)`,
    );
  } catch (error) {
    if (!(error instanceof InfluxUnencodableAnswer)) throw error;
    // A bucket's values add up beyond the largest double: InfluxDB's MEAN gives ±Inf, which its
    // JSON cannot hold. The buckets are computed here from the points (read as for samples 0),
    // with a mean that does not overflow.
    const points = await rawSeries(influx, where, false);
    return points.map((s) => ({ ...s, ...bucketMeans(s, interval, { withMinMax: minMax }) }));
  }
  return seriesOf(results).map((s) => {
    const out: HistogramSeries = {
      ...seriesName(s),
      x: s.values.map((row) => row[0] as number),
      y: s.values.map((row) => row[1] as number),
    };
    if (minMax) {
      out.min = s.values.map((row) => row[2] as number);
      out.max = s.values.map((row) => row[3] as number);
    }
    return out;
  });
}
