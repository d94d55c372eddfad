/**
 * Down-sampling of scalar series for the histograms (events.md §4.1): the
 * bucket interval of each series, ClearML's grouping of series that share
 * one interval (observable, hence contractual), and the bucketing itself for
 * when it has to happen in Node rather than in the store.
 */
import { compareCodePoints } from '../common/code-point-order.js';

/** What the store knows about one series before its points are read. */
export interface SeriesStats {
  readonly metric: string;
  readonly variant: string;
  /** Number of the series' events (n). */
  readonly count: number;
  /** Smallest and greatest x (iteration, or timestamp in epoch ms). */
  readonly minX: number;
  readonly maxX: number;
}

export const MAX_EXPECTED_POINTS_PER_GROUP = 6000;
export const MAX_SERIES_PER_GROUP = 50;

/** The interval one series would get on its own, and how many buckets that makes. */
export function seriesInterval(
  stats: Pick<SeriesStats, 'count' | 'minX' | 'maxX'>,
  samples: number,
): { interval: number; expected: number } {
  if (samples === 0 || stats.count < samples) return { interval: 1, expected: stats.count };
  const range = stats.maxX - stats.minX + 1;
  const interval = Math.max(1, ceilDiv(range, samples));
  return { interval, expected: ceilDiv(range, interval) };
}

/**
 * The interval every series is bucketed with: series are grouped as ClearML
 * groups them and each takes the final (largest) interval of its group.
 * The map is keyed by the input objects themselves.
 */
export function groupedSeriesIntervals<T extends SeriesStats>(series: readonly T[], samples: number): Map<T, number> {
  const ordered = series
    .map((s) => ({ series: s, ...seriesInterval(s, samples) }))
    .sort(
      (a, b) =>
        a.interval - b.interval ||
        compareCodePoints(a.series.metric, b.series.metric) ||
        compareCodePoints(a.series.variant, b.series.variant),
    );

  const result = new Map<T, number>();
  let members: T[] = [];
  let upper = 0;
  let expected = 0;
  let interval = 0;
  const closeGroup = (): void => {
    for (const member of members) result.set(member, interval);
  };
  for (const s of ordered) {
    const startsGroup =
      members.length === 0 ||
      s.interval > upper ||
      expected + s.expected > MAX_EXPECTED_POINTS_PER_GROUP ||
      members.length >= MAX_SERIES_PER_GROUP;
    if (startsGroup) {
      closeGroup();
      members = [];
      upper = s.interval + Math.floor(s.interval * 0.1);
      expected = 0;
      interval = s.interval;
    }
    members.push(s.series);
    expected += s.expected;
    interval = Math.max(interval, s.interval);
  }
  closeGroup();
  return result;
}

/**
 * The bucket of x: floor(x / interval) * interval with floor toward minus
 * infinity. Uses the remainder, which is exact for doubles, so the result is
 * exact wherever x is (|x| <= 2^53), unlike dividing first.
 */
export function bucketKey(x: number, interval: number): number {
  const remainder = x % interval;
  if (remainder === 0) return x === 0 ? 0 : x; // never -0: it would print as 0 but compare oddly in Object.is
  return remainder > 0 ? x - remainder : x - remainder - interval;
}

/** Points of one series as parallel arrays (the shape of a histogram series). */
export interface SeriesPoints {
  readonly x: ArrayLike<number>;
  readonly y: ArrayLike<number>;
}

export interface BucketedSeries {
  /** Bucket keys, ascending. */
  x: number[];
  /** Mean of the values of each bucket. */
  y: number[];
  /** Smallest and greatest value of each bucket, with `withMinMax` (an extension: not in ClearML). */
  min?: number[];
  max?: number[];
}

interface Bucket {
  key: number;
  sum: number;
  /** The sum of the values times 2^-64, which no count of doubles can overflow: for `mean` when `sum` did. */
  scaledSum: number;
  count: number;
  min: number;
  max: number;
}

const SCALE_DOWN = 2 ** -64;
const SCALE_UP = 2 ** 64;

/**
 * The mean of a bucket's values: sum / count, in the order they came, as InfluxDB's MEAN computes
 * it. Values near the largest double add up beyond it (±Infinity, which JSON writes as null) while
 * their mean is finite: then from the scaled sum, exact but for values below 2^-958 (~1e-288).
 */
function mean(bucket: Bucket): number {
  return Number.isFinite(bucket.sum) ? bucket.sum / bucket.count : (bucket.scaledSum / bucket.count) * SCALE_UP;
}

/**
 * Buckets points by `bucketKey` and averages each bucket; empty buckets are
 * omitted. Points may come in any order; when x is already ascending (what
 * stores return) no sort is needed.
 */
export function bucketMeans(
  points: SeriesPoints,
  interval: number,
  options: { withMinMax?: boolean } = {},
): BucketedSeries {
  const buckets = ascendingX(points.x) ? bucketsInOrder(points, interval) : bucketsUnordered(points, interval);
  const result: BucketedSeries = { x: buckets.map((b) => b.key), y: buckets.map(mean) };
  if (options.withMinMax) {
    result.min = buckets.map((b) => b.min);
    result.max = buckets.map((b) => b.max);
  }
  return result;
}

function ascendingX(x: ArrayLike<number>): boolean {
  for (let i = 1; i < x.length; i++) if (x[i]! < x[i - 1]!) return false;
  return true;
}

function bucketsInOrder({ x, y }: SeriesPoints, interval: number): Bucket[] {
  const buckets: Bucket[] = [];
  let current: Bucket | undefined;
  for (let i = 0; i < x.length; i++) {
    const key = bucketKey(x[i]!, interval);
    const value = y[i]!;
    if (current === undefined || current.key !== key) {
      current = { key, sum: 0, scaledSum: 0, count: 0, min: value, max: value };
      buckets.push(current);
    }
    addTo(current, value);
  }
  return buckets;
}

function bucketsUnordered({ x, y }: SeriesPoints, interval: number): Bucket[] {
  const byKey = new Map<number, Bucket>();
  for (let i = 0; i < x.length; i++) {
    const key = bucketKey(x[i]!, interval);
    const value = y[i]!;
    let bucket = byKey.get(key);
    if (bucket === undefined) {
      bucket = { key, sum: 0, scaledSum: 0, count: 0, min: value, max: value };
      byKey.set(key, bucket);
    }
    addTo(bucket, value);
  }
  return [...byKey.values()].sort((a, b) => a.key - b.key);
}

function addTo(bucket: Bucket, value: number): void {
  bucket.sum += value;
  bucket.scaledSum += value * SCALE_DOWN;
  bucket.count++;
  if (value < bucket.min) bucket.min = value;
  if (value > bucket.max) bucket.max = value;
}

/** ceil(a / b) for positive integers, exact up to 2^53 (floating division alone can round across an integer). */
function ceilDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  while (q * b > a) q--;
  while ((q + 1) * b <= a) q++;
  return q * b === a ? q : q + 1;
}
