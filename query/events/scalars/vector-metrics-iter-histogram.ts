/**
 * events.vector_metrics_iter_histogram (events.md §4.7): the vectors of one
 * metric/variant that have an iteration, ascending, at most 10000 (one
 * series, so InfluxDB's time order is the iteration order).
 */
import { TAG } from '../../../shared/events/storage-layout.js';
import { defineOperation } from '../../../shared/protocol/operation.js';
import { bool, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { namespaceOf } from '../store/entity-access.js';
import { columnIndex, seriesOf } from '../store/influx-rows.js';
import { allOf, entityWhere, HAS_ITER, tagEquals } from '../store/influx-where.js';

export const MAX_VECTORS = 10_000;

export function vectorMetricsIterHistogramOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.vector_metrics_iter_histogram',
    minVersion: '1.0',
    request: requestSchema({
      task: str({ required: true }),
      metric: str({ required: true }),
      variant: str({ required: true }),
      model_events: bool({ default: false }),
    }),
    async handle(request, context) {
      const company = context.identity.company;
      const namespace = namespaceOf(request.model_events);
      await deps.entities.requireOne(company, namespace, request.task);
      const where = allOf(
        entityWhere({ company, namespace, id: request.task }),
        tagEquals(TAG.metric, request.metric),
        tagEquals(TAG.variant, request.variant),
        HAS_ITER,
      );
      const series = seriesOf(
        await deps.influx.query(`SELECT "y" FROM "vector" WHERE ${where} ORDER BY time ASC LIMIT ${MAX_VECTORS}`),
      )[0];
      const rows = series?.values ?? [];
      const y = series ? columnIndex(series, 'y') : 0;
      return {
        metric: request.metric,
        variant: request.variant,
        vectors: rows.map((row) => JSON.parse(row[y] as string) as number[]),
        iterations: rows.map((row) => row[0] as number),
      };
    },
  });
}
