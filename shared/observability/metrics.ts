/**
 * Prometheus metrics (prom-client). One registry per process, created at the
 * composition root and handed to components, so that an `all` process and
 * tests never share a global registry by accident.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics, Gauge } from 'prom-client';
import { buildInfo } from './build-info.js';

export { Counter, Histogram, Gauge, Registry };

export interface HttpMetrics {
  requests: Counter<'endpoint' | 'code'>;
  duration: Histogram<'endpoint'>;
  responseBytes: Histogram<'endpoint'>;
}

/** Durations of calls and requests, in seconds (1 ms to 30 s). */
export const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Sizes of answers and requests, in bytes (256 B to 256 MiB, by 4). */
export const SIZE_BUCKETS = [
  256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864, 268_435_456,
];

/**
 * `processWide: false` leaves out the process's own metrics (CPU, memory,
 * event loop, build info): for a thread whose process exports them already.
 */
export function createMetricsRegistry(target: string, options: { processWide?: boolean } = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ target });
  if (options.processWide === false) return registry;
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'clearml_build_info',
    help: 'Always 1: the version of the service, the Node.js version running it, and the target (label target)',
    labelNames: ['version', 'node_version'],
    registers: [registry],
  }).set({ version: buildInfo.version, node_version: buildInfo.nodeVersion }, 1);
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
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    responseBytes: new Histogram({
      name: 'clearml_api_response_size_bytes',
      help: 'Bytes of an API answer as written to the connection (headers included), by endpoint',
      labelNames: ['endpoint'],
      buckets: SIZE_BUCKETS,
      registers: [registry],
    }),
  };
}
