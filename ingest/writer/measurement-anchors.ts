/**
 * Anchor series: one point per measurement in every shard, under a company
 * no client can have, so that deleting an entity never empties a
 * measurement of a shard.
 *
 * Why: InfluxDB 1.x (tsi1), after DROP SERIES removed a shard's last series
 * of a measurement, checks that the measurement has no series and then drops
 * it, in two steps. A series another writer creates in between is dropped
 * with it, and its points are gone for good: later points of that series
 * stay invisible too (measured: docs/storage.md, "Deleting an entity"). A
 * measurement that keeps its anchor is never empty, so it is never dropped.
 *
 * Every shard that holds a series of the entity already exists when its
 * deletion runs: the entity's events are written by this partition's writer,
 * in stream order, before the deletion. So anchoring the shards listed
 * right before the DROP SERIES covers every shard it can empty.
 */
import {
  ANCHOR_COMPANY,
  FIELD,
  MAX_ITER_TIME_TEXT,
  NO_ITER_TIME_TEXT,
  PLOT_BODY_MEASUREMENT,
  TAG,
} from '../../shared/events/storage-layout.js';
import type { InfluxResult, InfluxStore } from '../../shared/stores/influx-store.js';

/** InfluxDB's valid times (ns): the anchors of the first and the last shard group are clamped into them. */
const MIN_TIME = BigInt(NO_ITER_TIME_TEXT);
const MAX_TIME = BigInt(MAX_ITER_TIME_TEXT);

/** Writes the anchors of `measurements` into every shard of the store's database (idempotent: the same points each time). */
export async function anchorMeasurements(influx: InfluxStore, measurements: readonly string[]): Promise<void> {
  // SHOW SHARDS needs an admin user, as CREATE DATABASE at start does (docs/configuration.md).
  const starts = shardStarts(await influx.query('SHOW SHARDS'), influx.database);
  if (starts.length > 0) await influx.write(anchorLines(measurements, starts));
}

/** The start time (ns, clamped to InfluxDB's range) of every shard of `database` in a SHOW SHARDS answer. */
export function shardStarts(results: readonly InfluxResult[], database: string): bigint[] {
  const starts = new Set<bigint>();
  for (const series of results[0]?.series ?? []) {
    const dbColumn = series.columns.indexOf('database');
    const startColumn = series.columns.indexOf('start_time');
    if (dbColumn < 0 || startColumn < 0) continue;
    // A database without shards is a series without values, whatever InfluxSeries says.
    for (const row of (series.values as unknown[][] | undefined) ?? []) {
      if (row[dbColumn] !== database) continue;
      const ms = Date.parse(String(row[startColumn]));
      if (Number.isNaN(ms))
        throw new Error(`SHOW SHARDS gave a start time that is not one: ${String(row[startColumn])}`);
      const ns = BigInt(ms) * 1_000_000n;
      starts.add(ns < MIN_TIME ? MIN_TIME : ns > MAX_TIME ? MAX_TIME : ns);
    }
  }
  return [...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One anchor point per measurement and shard start, with a field each measurement already has, of its type. */
export function anchorLines(measurements: readonly string[], starts: readonly bigint[]): string {
  const lines: string[] = [];
  for (const measurement of measurements) {
    const field = measurement === PLOT_BODY_MEASUREMENT ? `${FIELD.plot}=""` : `${FIELD.timestamp}=0i`;
    for (const start of starts) lines.push(`${measurement},${TAG.company}=${ANCHOR_COMPANY} ${field} ${start}\n`);
  }
  return lines.join('');
}
