/**
 * events.get_task_latest_scalar_values (events.md §4.5). One InfluxDB
 * statement: the latest 100 points of every scalar series (`ORDER BY time
 * DESC LIMIT 100` per series; the no-iteration sentinel sorts last as the
 * contract wants). The greatest receive time of the scalars and the
 * greatest iteration of every event type come from the task record, where
 * the writer keeps them; for data stored before it did, they are read from
 * the points (MAX over every scalar, LAST of each measurement: that opens
 * every image file's series).
 */
import { defineOperation } from '../../../shared/protocol/operation.js';
import { requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { LATEST_POINTS_PER_VARIANT, latestScalarMetrics, type ScalarMetricPoint } from './latest-scalar-values.js';
import { LogSegments } from '../store/log-segments.js';
import { columnIndex, seriesName, seriesOf } from '../store/influx-rows.js';
import { allOf, entityWhere, HAS_ITER } from '../store/influx-where.js';
import { iterFromTime, iterTimeText } from '../../../shared/events/storage-layout.js';

export function getTaskLatestScalarValuesOperation(deps: QueryDeps) {
  return defineOperation({
    name: 'events.get_task_latest_scalar_values',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }) }),
    async handle(request, context) {
      const company = context.identity.company;
      const record = await deps.entities.requireOne(company, 't', request.task);
      const where = entityWhere({ company, namespace: 't', id: request.task });
      const statements = [
        `SELECT "y", "ts" FROM "scalar" WHERE ${where} GROUP BY "m", "v" ORDER BY time DESC LIMIT ${LATEST_POINTS_PER_VARIANT}`,
      ];
      const iterationsAt =
        record.maxIter === undefined
          ? statements.push(
              `SELECT LAST("ts") FROM "scalar", "vector", "image", "plot" WHERE ${allOf(where, HAS_ITER)}`,
            ) - 1
          : -1;
      const receivedAt =
        record.lastScalarAt === undefined ? statements.push(`SELECT MAX("at") FROM "scalar" WHERE ${where}`) - 1 : -1;
      const [results, logIter] = await Promise.all([
        deps.influx.query(statements.join('; ')),
        new LogSegments(deps.redis, deps.keyPrefix).maxIteration(company, request.task),
      ]);
      const points: ScalarMetricPoint[] = [];
      for (const s of seriesOf(results, 0)) {
        const { metric, variant } = seriesName(s);
        const [y, ts] = [columnIndex(s, 'y'), columnIndex(s, 'ts')];
        for (const row of s.values)
          points.push({
            metric,
            variant,
            iter: iterFromTime(row[0] as number),
            timestamp: row[ts] as number,
            value: row[y] as number,
          });
      }
      const lastTimestamp = record.lastScalarAt ?? seriesOf(results, receivedAt)[0]?.values[0]?.[1];
      const iterations =
        record.maxIter === undefined
          ? seriesOf(results, iterationsAt).map((s) => s.values[0]![0] as number)
          : record.maxIter === null
            ? []
            : [storedIteration(record.maxIter)];
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

/** An iteration as InfluxDB answers it once stored: clamped to its time range (what LAST of the points gave). */
function storedIteration(iter: number): number {
  return Number(iterTimeText(iter));
}
