/**
 * What one request changes on each entity record (events.md §1.11),
 * accumulated while events are checked and shipped to the writer as an R
 * record, which applies it in stream order ("later" = persistence order).
 */
import { DEFAULT_IGNORED_ITERATION_METRICS } from '../../shared/events/domain/special-iterations.js';
import type { EntitySummary, ScalarStats } from '../../shared/events/wire-format.js';
import { NestedKeyMap } from '../../shared/events/nested-key-map.js';
import type { NormalizedEvent } from './event-normalizer.js';

const IGNORED = new Set(DEFAULT_IGNORED_ITERATION_METRICS);
const NO_ITER = Number.NEGATIVE_INFINITY;

interface ScalarAccumulator extends ScalarStats {
  /** (iter, timestamp) of the event giving `value` */
  latestIter: number;
  latestTimestamp: number;
  lowestIter: number;
  /** running mean, weighted so that it cannot overflow where the sum does */
  runningMean: number;
}

export class EntitySummaryBuilder {
  private lastIter: number | undefined;
  private readonly scalars = new NestedKeyMap<ScalarAccumulator>();
  private readonly listing = new Map<string, NestedKeyMap<[string, string, string, 0 | 1]>>();

  constructor(
    readonly company: string,
    readonly namespace: 't' | 'm',
    readonly entity: string,
  ) {}

  add(event: NormalizedEvent): void {
    const { iter } = event;
    if (iter !== undefined && !IGNORED.has(event.metric) && (this.lastIter === undefined || iter > this.lastIter)) this.lastIter = iter;
    const regular: 0 | 1 = iter !== undefined && iter > -2_147_483_648 ? 1 : 0;
    let ofType = this.listing.get(event.type);
    if (ofType === undefined) this.listing.set(event.type, (ofType = new NestedKeyMap()));
    const listed = ofType.get(event.metric, event.variant);
    if (listed === undefined) ofType.set(event.metric, event.variant, [event.type, event.metric, event.variant, regular]);
    else if (regular) listed[3] = 1;
    if (event.type === 'training_stats_scalar') this.addScalar(event);
  }

  private addScalar(event: NormalizedEvent): void {
    const value = event.value!;
    const iterKey = event.iter ?? NO_ITER;
    const iter = event.iter ?? null;
    const stats = this.scalars.get(event.metric, event.variant);
    if (stats === undefined) {
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
        ...(event.xAxisLabel === undefined ? {} : { x_axis_label: event.xAxisLabel }),
        latestIter: iterKey,
        latestTimestamp: event.timestamp,
        lowestIter: iterKey,
        runningMean: value,
      });
      return;
    }
    stats.count += 1;
    stats.sum += value;
    stats.runningMean = stats.runningMean * ((stats.count - 1) / stats.count) + value / stats.count;
    if (value < stats.min) {
      stats.min = value;
      stats.minIter = iter;
    }
    if (value > stats.max) {
      stats.max = value;
      stats.maxIter = iter;
    }
    if (iterKey < stats.lowestIter) {
      stats.lowestIter = iterKey;
      stats.first = value;
      stats.firstIter = iter;
    }
    if (iterKey > stats.latestIter || (iterKey === stats.latestIter && event.timestamp >= stats.latestTimestamp)) {
      stats.latestIter = iterKey;
      stats.latestTimestamp = event.timestamp;
      stats.value = value;
      stats.iter = iter;
      stats.timestamp = event.timestamp;
      // Only the latest event's label counts; without one this request sets none.
      if (event.xAxisLabel !== undefined) stats.x_axis_label = event.xAxisLabel;
      else delete stats.x_axis_label;
    }
  }

  build(user: string, receivedAt: number): EntitySummary {
    return {
      c: this.company,
      n: this.namespace,
      e: this.entity,
      u: user,
      at: receivedAt,
      ...(this.lastIter === undefined ? {} : { lastIter: this.lastIter }),
      scalars: [...this.scalars.values()].map(({ latestIter: _l, latestTimestamp: _t, lowestIter: _w, runningMean, ...stats }) =>
        Number.isFinite(stats.sum) ? stats : { ...stats, mean: Math.min(stats.max, Math.max(stats.min, runningMean)) },
      ),
      listing: [...this.listing.values()].flatMap((ofType) => [...ofType.values()]),
    };
  }
}
