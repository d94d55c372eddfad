/**
 * x_axis_label of scalar series (events.md §1.11, §4.1): kept in the
 * entity's last_metrics hash, field JSON [metric, variant], by the writer.
 */
import { redisKeys } from '../../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { Namespace } from './entity-access.js';
import { seriesKey } from './influx-rows.js';
import type { SeriesName } from './influx-where.js';

/** Labels by seriesKey, only for series that have one. */
export async function xAxisLabels(
  redis: RedisClient,
  prefix: string,
  company: string,
  namespace: Namespace,
  id: string,
  series: readonly SeriesName[],
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  if (series.length === 0) return labels;
  const fields = series.map((s) => JSON.stringify([s.metric, s.variant]));
  const stats = await redis.hmGet(redisKeys(prefix).lastMetrics(company, namespace, id), fields);
  stats.forEach((text, i) => {
    if (typeof text !== 'string') return;
    try {
      const label = (JSON.parse(text) as { x_axis_label?: unknown }).x_axis_label;
      if (typeof label === 'string') labels.set(seriesKey(series[i]!), label);
    } catch {
      // a malformed statistics entry only loses its label
    }
  });
  return labels;
}
