/**
 * events.get_scalar_metrics_and_variants (events.md §3).
 */
import type { QueryDeps } from '../../query-deps.js';
import { metricsAndVariantsOperation } from './metrics-and-variants.js';

export const getScalarMetricsAndVariantsOperation = (deps: QueryDeps) =>
  metricsAndVariantsOperation(deps, 'events.get_scalar_metrics_and_variants', 'training_stats_scalar');
