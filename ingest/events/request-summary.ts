/**
 * What one request changes on each entity record (events.md §1.11),
 * accumulated while events are checked and shipped to the writer as an R
 * record, which applies it in stream order ("later" = persistence order).
 */
import {
  countsForHistogram,
  DEFAULT_IGNORED_ITERATION_METRICS,
} from '../../shared/events/domain/special-iterations.js';
import type { EntitySummary, ScalarStats } from '../../shared/events/wire-format.js';
import { ImageUsesBuilder } from './image-uses.js';
import { NestedKeyMap } from './nested-key-map.js';
import type { NormalizedEvent } from './event-normalizer.js';

const IGNORED = new Set(DEFAULT_IGNORED_ITERATION_METRICS);

/**
 * Memory a new series takes in a request (measured with heap snapshots,
 * rounded up): the listing entry with its map slots, and a scalar
 * accumulator; plus the metric and variant text it keeps (two bytes a code
 * unit at worst) and the encoder's cached tag text for it.
 */
const LISTING_BYTES = 400;
const SCALAR_BYTES = 500;
const seriesBytes = (event: NormalizedEvent, fixed: number) => fixed + 4 * (event.metric.length + event.variant.length);
const NO_ITER = Number.NEGATIVE_INFINITY;

/**
 * Values scaled down by 2^64 sum without overflow (|v| ≤ MAX_VALUE, so a
 * scaled sum of 2^960 values stays finite); only values below 2^-1010 lose
 * precision, which cannot matter once the plain sum has overflowed.
 */
const SCALE = 2 ** -64;

interface ScalarAccumulator extends ScalarStats {
  /** (iter, timestamp) of the event giving `value` */
  latestIter: number;
  latestTimestamp: number;
  lowestIter: number;
  scaledSum: number;
}

/**
 * The plain sum and mean while the sum is finite, else the scaled mean and a
 * clamped sum. The mean is kept within [min, max], where the exact one lies
 * (rounding can put sum / count just outside, or the scaled one beyond the doubles).
 */
function finiteSumAndMean(stats: ScalarAccumulator): { sum: number; mean: number } {
  const finite = Number.isFinite(stats.sum);
  const mean = finite ? stats.sum / stats.count : stats.scaledSum / stats.count / SCALE;
  return {
    sum: finite ? stats.sum : stats.sum > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE,
    // `|| 0`: a tiny negative mean can underflow to -0, which JSON carries as 0.
    mean: Math.min(stats.max, Math.max(stats.min, mean)) || 0,
  };
}

type ListingEntry = [string, string, string, 0 | 1];

/**
 * A scalar series of the request, as a reader that meets it again keeps it
 * (the plain scalar lines' fused path): its listing entry, its accumulator,
 * and whether its metric counts for the last iteration.
 */
export interface ScalarSeries {
  listed: ListingEntry;
  stats: ScalarAccumulator;
  ignored: boolean;
}

/**
 * A plain scalar's numbers, read from the object that holds them: passed one by one to a call
 * that is not inlined, a timestamp or value beyond V8's small integers is boxed in a new heap
 * number each (~24 bytes an event, docs/performance.md).
 */
export interface PlainPoint {
  readonly iter: number;
  readonly timestamp: number;
  readonly value: number;
}

/** What a scalar event changes in its series' statistics (`label`: its x_axis_label). */
function updateScalar(
  stats: ScalarAccumulator,
  iter: number | undefined,
  timestamp: number,
  value: number,
  label: string | undefined,
): void {
  const iterKey = iter ?? NO_ITER;
  const iterValue = iter ?? null;
  stats.count += 1;
  stats.sum += value;
  stats.scaledSum += value * SCALE;
  if (value < stats.min) {
    stats.min = value;
    stats.minIter = iterValue;
  }
  if (value > stats.max) {
    stats.max = value;
    stats.maxIter = iterValue;
  }
  if (iterKey < stats.lowestIter) {
    stats.lowestIter = iterKey;
    stats.first = value;
    stats.firstIter = iterValue;
  }
  if (iterKey > stats.latestIter || (iterKey === stats.latestIter && timestamp >= stats.latestTimestamp)) {
    stats.latestIter = iterKey;
    stats.latestTimestamp = timestamp;
    stats.value = value;
    stats.iter = iterValue;
    stats.timestamp = timestamp;
    // Only the latest event's label counts; without one this request sets none.
    if (label !== undefined) stats.x_axis_label = label;
    else delete stats.x_axis_label;
  }
}

export class EntitySummaryBuilder {
  private lastIter: number | undefined;
  private maxIter: number | null = null;
  private readonly scalars = new NestedKeyMap<ScalarAccumulator>();
  private readonly listing = new Map<string, NestedKeyMap<ListingEntry>>();
  private readonly images = new ImageUsesBuilder();

  constructor(
    readonly company: string,
    readonly namespace: 't' | 'm',
    readonly entity: string,
  ) {}

  /** Adds an event; answers the bytes of state this created (a new metric listing or scalar series), for the in-flight budget. */
  add(event: NormalizedEvent): number {
    const { iter } = event;
    this.noteIteration(iter, iter !== undefined && IGNORED.has(event.metric), event.type !== 'log');
    const regular: 0 | 1 = countsForHistogram(iter) ? 1 : 0;
    let ofType = this.listing.get(event.type);
    if (ofType === undefined) this.listing.set(event.type, (ofType = new NestedKeyMap()));
    const listed = ofType.get(event.metric, event.variant);
    let created = 0;
    if (listed === undefined) {
      ofType.set(event.metric, event.variant, [event.type, event.metric, event.variant, regular]);
      created += seriesBytes(event, LISTING_BYTES);
    } else if (regular) listed[3] = 1;
    if (event.type === 'training_stats_scalar' && this.addScalar(event))
      created += seriesBytes(event, SCALAR_BYTES + 2 * (event.xAxisLabel?.length ?? 0));
    return created + this.images.add(event);
  }

  /**
   * What `add` does for a scalar event without x_axis_label of a series it has seen: the
   * same changes, without finding the series (no image index: scalars have none). Creates
   * nothing, so answers nothing for the budget.
   */
  addToScalarSeries(series: ScalarSeries, point: PlainPoint): void {
    const { iter, timestamp, value } = point;
    this.noteIteration(iter, series.ignored, true);
    if (countsForHistogram(iter)) series.listed[3] = 1;
    updateScalar(series.stats, iter, timestamp, value, undefined);
  }

  /** The scalar series of `metric`/`variant`, once `add` has seen an event of it. */
  scalarSeries(metric: string, variant: string): ScalarSeries | undefined {
    const listed = this.listing.get('training_stats_scalar')?.get(metric, variant);
    const stats = this.scalars.get(metric, variant);
    return listed === undefined || stats === undefined ? undefined : { listed, stats, ignored: IGNORED.has(metric) };
  }

  /** `ignored`: the event's metric does not count for the last iteration; `stored`: the event goes to InfluxDB (not a log). */
  private noteIteration(iter: number | undefined, ignored: boolean, stored: boolean): void {
    if (iter !== undefined && !ignored && (this.lastIter === undefined || iter > this.lastIter)) this.lastIter = iter;
    if (iter !== undefined && stored && (this.maxIter === null || iter > this.maxIter)) this.maxIter = iter;
  }

  /** Answers true when the event opened a new metric/variant. */
  private addScalar(event: NormalizedEvent): boolean {
    const value = event.value!;
    const stats = this.scalars.get(event.metric, event.variant);
    if (stats === undefined) {
      const iterKey = event.iter ?? NO_ITER;
      const iter = event.iter ?? null;
      this.scalars.set(event.metric, event.variant, {
        metric: event.metric,
        variant: event.variant,
        value,
        iter,
        timestamp: event.timestamp,
        min: value,
        minIter: iter,
        max: value,
        maxIter: iter,
        first: value,
        firstIter: iter,
        count: 1,
        sum: value,
        mean: value,
        ...(event.xAxisLabel === undefined ? {} : { x_axis_label: event.xAxisLabel }),
        latestIter: iterKey,
        latestTimestamp: event.timestamp,
        lowestIter: iterKey,
        scaledSum: value * SCALE,
      });
      return true;
    }
    updateScalar(stats, event.iter, event.timestamp, value, event.xAxisLabel);
    return false;
  }

  build(user: string, receivedAt: number): EntitySummary {
    return {
      c: this.company,
      n: this.namespace,
      e: this.entity,
      u: user,
      at: receivedAt,
      ...(this.lastIter === undefined ? {} : { lastIter: this.lastIter }),
      maxIter: this.maxIter,
      scalars: [...this.scalars.values()].map(
        ({ latestIter: _l, latestTimestamp: _t, lowestIter: _w, scaledSum: _s, ...stats }, i, all) => ({
          ...stats,
          ...finiteSumAndMean(all[i]!),
        }),
      ),
      listing: [...this.listing.values()].flatMap((ofType) => [...ofType.values()]),
      images: this.images.build(),
    };
  }
}
