/**
 * Reading InfluxDB answers: the series of one statement, their decoded
 * metric/variant tags, and named columns.
 */
import { decodeTagValue, TAG } from '../../../shared/events/storage-layout.js';
import type { InfluxResult, InfluxSeries } from '../../../shared/stores/influx-store.js';
import type { SeriesName } from './influx-where.js';

export function seriesOf(results: readonly InfluxResult[], statement = 0): InfluxSeries[] {
  return results[statement]?.series ?? [];
}

/** The metric/variant of a series grouped BY "m", "v". */
export function seriesName(series: InfluxSeries): SeriesName {
  return {
    metric: decodeTagValue(series.tags?.[TAG.metric] ?? ''),
    variant: decodeTagValue(series.tags?.[TAG.variant] ?? ''),
  };
}

/** The value of a tag of a series grouped by it. */
export function seriesTag(series: InfluxSeries, tag: string): string {
  return decodeTagValue(series.tags?.[tag] ?? '');
}

/** Index of a column; throws when the answer lacks it (a query bug, not bad input). */
export function columnIndex(series: InfluxSeries, name: string): number {
  const index = series.columns.indexOf(name);
  if (index < 0) throw new Error(`InfluxDB answer lacks column ${name} (has ${series.columns.join(', ')})`);
  return index;
}

/** Key for maps of series: metric and variant joined by a character names cannot hold unnoticed. */
export function seriesKey(name: SeriesName): string {
  return `${name.metric}\u0000${name.variant}`;
}
