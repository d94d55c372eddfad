/**
 * events.get_task_latest_scalar_values (events.md §4.5): per variant, the
 * last value and the means of the last 10 and last 100 values, "last" being
 * (iter desc, timestamp desc). Every value counts, single values included.
 */
import { compareCodePoints } from '../common/code-point-order.js';

export interface ScalarPoint {
  /** Absent ranks below every iteration. */
  readonly iter?: number | null;
  readonly timestamp: number;
  readonly value: number;
}

export interface ScalarMetricPoint extends ScalarPoint {
  readonly metric: string;
  readonly variant: string;
}

export interface LatestValues {
  last_value: number;
  last_10_value: number;
  last_100_value: number;
}

export interface LatestVariant extends LatestValues {
  name: string;
}

export interface LatestMetric {
  name: string;
  variants: LatestVariant[];
}

/** How many of the latest points per variant the answer uses (adapters need load no more). */
export const LATEST_POINTS_PER_VARIANT = 100;

/** Latest first: iter descending (points without iter last), then timestamp descending. */
export function compareLatestFirst(a: ScalarPoint, b: ScalarPoint): number {
  const ai = a.iter ?? -Infinity;
  const bi = b.iter ?? -Infinity;
  if (ai !== bi) return ai < bi ? 1 : -1;
  return b.timestamp - a.timestamp;
}

/** The three figures from values already in latest-first order; undefined when there are none. */
export function latestValues(valuesLatestFirst: ArrayLike<number>): LatestValues | undefined {
  if (valuesLatestFirst.length === 0) return undefined;
  return {
    last_value: valuesLatestFirst[0]!,
    last_10_value: meanOfFirst(valuesLatestFirst, 10),
    last_100_value: meanOfFirst(valuesLatestFirst, 100),
  };
}

function meanOfFirst(values: ArrayLike<number>, n: number): number {
  const count = Math.min(n, values.length);
  let sum = 0;
  for (let i = 0; i < count; i++) sum += values[i]!;
  return sum / count;
}

/**
 * The `metrics` list of the response from points in any order: metrics and
 * their variants ascending by name.
 */
export function latestScalarMetrics(points: Iterable<ScalarMetricPoint>): LatestMetric[] {
  const byMetric = new Map<string, Map<string, ScalarPoint[]>>();
  for (const p of points) {
    let variants = byMetric.get(p.metric);
    if (variants === undefined) byMetric.set(p.metric, (variants = new Map()));
    let list = variants.get(p.variant);
    if (list === undefined) variants.set(p.variant, (list = []));
    list.push(p);
  }
  return [...byMetric.keys()].sort(compareCodePoints).map((metric) => {
    const variants = byMetric.get(metric)!;
    return {
      name: metric,
      variants: [...variants.keys()].sort(compareCodePoints).map((variant) => {
        const latest = variants.get(variant)!.sort(compareLatestFirst).slice(0, LATEST_POINTS_PER_VARIANT);
        return { name: variant, ...latestValues(latest.map((p) => p.value))! };
      }),
    };
  });
}
