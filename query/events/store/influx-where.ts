/**
 * InfluxQL fragments shared by the event reads: which entity, which
 * metric/variant series, which iterations. Tag values go through
 * encodeTagValue exactly as the ingest encoder wrote them.
 */
import type { MetricFilter } from '../common/metric-variants.js';
import { SINGLE_VALUE_ITER } from '../../../shared/events/domain/special-iterations.js';
import {
  encodeTagValue,
  influxQlIdentifier,
  influxQlString,
  iterTimeText,
  NO_ITER_TIME_TEXT,
  TAG,
} from '../../../shared/events/storage-layout.js';
import type { Namespace } from './entity-access.js';

export interface EntityRef {
  readonly company: string;
  readonly namespace: Namespace;
  readonly id: string;
}

export interface SeriesName {
  readonly metric: string;
  readonly variant: string;
}

/** `"<tag>"='<encoded value>'` */
export function tagEquals(tag: string, value: string): string {
  return `${influxQlIdentifier(tag)}=${influxQlString(encodeTagValue(value))}`;
}

/** The entity's series: company, namespace and id (all three, so another company's or namespace's series never match). */
export function entityWhere(ref: EntityRef): string {
  return `${tagEquals(TAG.company, ref.company)} AND ${tagEquals(TAG.namespace, ref.namespace)} AND ${tagEquals(TAG.entity, ref.id)}`;
}

/** Several entities of one company and namespace. */
export function entitiesWhere(company: string, namespace: Namespace, ids: readonly string[]): string {
  const anyId = ids.map((id) => tagEquals(TAG.entity, id)).join(' OR ');
  return `${tagEquals(TAG.company, company)} AND ${tagEquals(TAG.namespace, namespace)} AND (${anyId})`;
}

/** The metrics filter of a request as a condition; undefined when it selects everything. */
export function metricFilterWhere(filter: MetricFilter): string | undefined {
  if (filter.isEmpty) return undefined;
  const parts = filter.metrics.map(({ metric, variants }) => {
    const m = tagEquals(TAG.metric, metric);
    if (variants === undefined) return m;
    return `(${m} AND (${variants.map((v) => tagEquals(TAG.variant, v)).join(' OR ')}))`;
  });
  return `(${parts.join(' OR ')})`;
}

/** Exactly these metric/variant series. */
export function seriesWhere(series: readonly SeriesName[]): string {
  const byMetric = new Map<string, string[]>();
  for (const s of series) {
    const variants = byMetric.get(s.metric);
    if (variants) variants.push(s.variant);
    else byMetric.set(s.metric, [s.variant]);
  }
  const parts = [...byMetric].map(
    ([metric, variants]) =>
      `(${tagEquals(TAG.metric, metric)} AND (${variants.map((v) => tagEquals(TAG.variant, v)).join(' OR ')}))`,
  );
  return `(${parts.join(' OR ')})`;
}

/** Joins conditions with AND, skipping absent ones. */
export function allOf(...conditions: Array<string | undefined | false>): string {
  return conditions.filter((c): c is string => typeof c === 'string' && c !== '').join(' AND ');
}

/** Smallest time of an event with an iteration: one above the no-iteration sentinel. */
export { MIN_ITER_TIME_TEXT } from '../../../shared/events/storage-layout.js';
import { MIN_ITER_TIME_TEXT } from '../../../shared/events/storage-layout.js';

/** Events with an iteration (any, single values included). */
export const HAS_ITER = `time >= ${MIN_ITER_TIME_TEXT}`;
/** Events without an iteration. */
export const NO_ITER = `time = ${NO_ITER_TIME_TEXT}`;
/** Events whose iteration counts for histograms and get_task_metrics: present and above -2^31 (events.md §1.6). */
export const REGULAR_ITER = `time > ${iterTimeText(SINGLE_VALUE_ITER)}`;
/** Single values (events.md §1.6). */
export const SINGLE_VALUE = `time = ${iterTimeText(SINGLE_VALUE_ITER)}`;

/** `time <op> <iteration>`, with the iteration clamped as the encoder clamps it. */
export function timeCompare(op: '>' | '>=' | '<' | '<=' | '=', iter: number): string {
  return `time ${op} ${iterTimeText(iter)}`;
}
