/**
 * events.get_task_single_value_metrics (events.md §4.6; reports.get_task_data
 * reuses `singleValuesOf`, §0.7). Single values are the scalars at time
 * -2147483648 exactly: one point per series, read for all entities at once.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import { metricFilter, type MetricFilter } from '../common/metric-variants.js';
import { TAG } from '../../../shared/events/storage-layout.js';
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { metricsFilterField, withTasksList } from '../common/event-read-fields.js';
import { namespaceOf, type EntityRecord, type Namespace } from '../store/entity-access.js';
import { columnIndex, seriesName, seriesOf, seriesTag } from '../store/influx-rows.js';
import { allOf, entitiesWhere, metricFilterWhere, SINGLE_VALUE } from '../store/influx-where.js';

export const MAX_SINGLE_VALUES = 10_000;

export interface SingleValue {
  metric: string;
  variant: string;
  value: number;
  timestamp: number;
}

export interface EntitySingleValues {
  task: string;
  task_name: string;
  values: SingleValue[];
}

/** Entities with at least one single value passing the filter, in the given order; at most 10000 values in all. */
export async function singleValuesOf(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  records: readonly EntityRecord[],
  filter: MetricFilter,
): Promise<EntitySingleValues[]> {
  const unique = [...new Map(records.map((r) => [r.id, r])).values()];
  if (unique.length === 0) return [];
  const where = allOf(
    entitiesWhere(
      company,
      namespace,
      unique.map((r) => r.id),
    ),
    metricFilterWhere(filter),
    SINGLE_VALUE,
  );
  const results = await deps.influx.query(`SELECT "y", "ts" FROM "scalar" WHERE ${where} GROUP BY "e", "m", "v"`);
  const byEntity = new Map<string, SingleValue[]>();
  for (const s of seriesOf(results)) {
    const row = s.values[0];
    if (!row) continue;
    const entity = seriesTag(s, TAG.entity);
    const values = byEntity.get(entity) ?? [];
    values.push({
      ...seriesName(s),
      value: row[columnIndex(s, 'y')] as number,
      timestamp: row[columnIndex(s, 'ts')] as number,
    });
    byEntity.set(entity, values);
  }
  const out: EntitySingleValues[] = [];
  let budget = MAX_SINGLE_VALUES;
  for (const record of unique) {
    const values = byEntity.get(record.id);
    if (!values || budget === 0) continue;
    values.sort((a, b) => compareCodePoints(a.metric, b.metric) || compareCodePoints(a.variant, b.variant));
    const kept = values.slice(0, budget);
    budget -= kept.length;
    out.push({ task: record.id, task_name: record.name, values: kept });
  }
  return out;
}

export function getTaskSingleValueMetricsOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.get_task_single_value_metrics',
    minVersion: '1.0',
    request: withTasksList({ metrics: metricsFilterField(), model_events: bool({ default: false }) }),
    async handle(request, context) {
      const namespace = namespaceOf(request.model_events);
      const records = await deps.entities.requireReadable(context.identity.company, namespace, request.tasks);
      return {
        tasks: await singleValuesOf(deps, context.identity.company, namespace, records, metricFilter(request.metrics)),
      };
    },
  });
}
