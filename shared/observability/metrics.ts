/**
 * Prometheus metrics (prom-client). One registry per process, created at the
 * composition root and handed to components, so that an `all` process and
 * tests never share a global registry by accident.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics, Gauge } from 'prom-client';

export { Counter, Histogram, Gauge, Registry };

export interface HttpMetrics {
  requests: Counter<'endpoint' | 'code'>;
  duration: Histogram<'endpoint'>;
}

export function createMetricsRegistry(target: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ target });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  return {
    requests: new Counter({
      name: 'clearml_api_requests_total',
      help: 'API calls answered, by endpoint and result code',
      labelNames: ['endpoint', 'code'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'clearml_api_request_duration_seconds',
      help: 'API call duration, by endpoint',
      labelNames: ['endpoint'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}
