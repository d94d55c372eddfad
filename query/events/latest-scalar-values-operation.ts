/**
 * events.get_task_latest_scalar_values (events.md §4.5). One InfluxDB
 * request: the latest 100 points of every series (`ORDER BY time DESC
 * LIMIT 100` per series; the no-iteration sentinel sorts last as the
 * contract wants) and the greatest iteration of each measurement (LAST
 * picks the greatest time). The greatest receive time of the scalars comes
 * from the task record, where the writer keeps it.
 */
import { defineOperation } from '../../shared/protocol/operation.js';
import { requestSchema, str } from '../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../query-deps.js';
import { LATEST_POINTS_PER_VARIANT, latestScalarMetrics, type ScalarMetricPoint } from './domain/latest-scalar-values.js';
import { LogSegments } from './store/log-segments.js';
import { columnIndex, seriesName, seriesOf } from './store/influx-rows.js';
import { allOf, entityWhere, HAS_ITER } from './store/influx-where.js';
import { iterFromTime } from '../../shared/events/storage-layout.js';

export function latestScalarValuesOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.get_task_latest_scalar_values',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }) }),
    async handle(request, context) {
      const company = context.identity.company;
      const record = await deps.entities.requireOne(company, 't', request.task);
      const where = entityWhere({ company, namespace: 't', id: request.task });
      const [results, logIter] = await Promise.all([
        deps.influx.query(
          [
            `SELECT "y", "ts" FROM "scalar" WHERE ${where} GROUP BY "m", "v" ORDER BY time DESC LIMIT ${LATEST_POINTS_PER_VARIANT}`,
            `SELECT LAST("ts") FROM "scalar", "vector", "image", "plot" WHERE ${allOf(where, HAS_ITER)}`,
            // The writer keeps the greatest receive time on the record; scanning every point is left to data
            // stored before it did.
            ...(record.lastScalarAt === undefined ? [`SELECT MAX("at") FROM "scalar" WHERE ${where}`] : []),
          ].join('; '),
        ),
        new LogSegments(deps.redis, deps.keyPrefix).maxIteration(company, request.task),
      ]);
      const points: ScalarMetricPoint[] = [];
      for (const s of seriesOf(results, 0)) {
        const { metric, variant } = seriesName(s);
        const [y, ts] = [columnIndex(s, 'y'), columnIndex(s, 'ts')];
        for (const row of s.values) points.push({ metric, variant, iter: iterFromTime(row[0] as number), timestamp: row[ts] as number, value: row[y] as number });
      }
      const lastTimestamp = record.lastScalarAt ?? seriesOf(results, 2)[0]?.values[0]?.[1];
      const iterations = seriesOf(results, 1).map((s) => s.values[0]![0] as number);
      if (logIter !== undefined) iterations.push(logIter);
      return {
        metrics: latestScalarMetrics(points),
        last_iter: iterations.length > 0 ? Math.max(...iterations) : 0,
        name: record.name,
        status: record.status ?? '',
        last_timestamp: typeof lastTimestamp === 'number' ? lastTimestamp : 0,
      };
    },
  });
}
