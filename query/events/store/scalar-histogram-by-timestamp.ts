/**
 * Scalar histograms with key=timestamp / iso_time (events.md §4.1). The x
 * source is the `ts` field, and InfluxQL can group only by time (the
 * iteration here) or tags, never by a field's value; so each series' `ts`
 * and `y` are read in bulk and bucketed here (scalars/histogram-intervals.ts).
 *
 * Measured alternatives (docs/events-read.md): fine iteration buckets with
 * MIN/MAX(ts) + SUM/COUNT, re-reading only the buckets that straddle a
 * timestamp bucket, cost InfluxDB more than the plain read (per-bucket
 * aggregation is ~15 µs a bucket) and still needed raw reads. The plain
 * read costs InfluxDB ~2 µs a point; series are read one per request, a
 * few at a time, which uses both InfluxDB cores, in CSV (cheaper on both
 * sides than JSON).
 */
import { bucketMeans, groupedSeriesIntervals, type SeriesStats } from '../scalars/histogram-intervals.js';
import { mapLimited } from '../common/map-limited.js';
import type { HistogramSeries } from './scalar-histogram-by-iter.js';
import type { InfluxCsvReader } from './influx-csv.js';
import { allOf, entityWhere, REGULAR_ITER, seriesWhere, type EntityRef, type SeriesName } from './influx-where.js';

/** Concurrent series reads: InfluxDB has two cores here; more only queue. */
const READ_CONCURRENCY = 3;

interface LoadedSeries extends SeriesStats {
  ts: Float64Array;
  y: Float64Array;
}

export async function timestampHistogram(
  csv: InfluxCsvReader,
  ref: EntityRef,
  series: readonly SeriesName[],
  samples: number,
  minMax: boolean,
): Promise<HistogramSeries[]> {
  const loaded = (await mapLimited(series, READ_CONCURRENCY, (s) => loadSeries(csv, ref, s))).filter(
    (s) => s.count > 0,
  );
  const intervals = groupedSeriesIntervals(loaded, samples);
  return loaded.map((s) => ({
    metric: s.metric,
    variant: s.variant,
    ...bucketMeans({ x: s.ts, y: s.y }, intervals.get(s)!, { withMinMax: minMax }),
  }));
}

async function loadSeries(csv: InfluxCsvReader, ref: EntityRef, name: SeriesName): Promise<LoadedSeries> {
  const where = allOf(entityWhere(ref), seriesWhere([name]), REGULAR_ITER);
  const [ts, y] = await csv.numericColumns(`SELECT "ts", "y" FROM "scalar" WHERE ${where}`, ['ts', 'y']);
  let minX = Infinity;
  let maxX = -Infinity;
  for (let i = 0; i < ts!.length; i++) {
    const t = ts![i]!;
    if (t < minX) minX = t;
    if (t > maxX) maxX = t;
  }
  return { metric: name.metric, variant: name.variant, ts: ts!, y: y!, count: ts!.length, minX, maxX };
}
