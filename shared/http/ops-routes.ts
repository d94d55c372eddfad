/**
 * /health, /ready and /metrics: what probes and Prometheus ask a process.
 * Served on the API listener, and with OPS_PORT also on a listener of their
 * own (ops-server.ts), so that a flood of the API's connections does not
 * fail the probes of a process that is working.
 */
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { mergeExpositions } from '../observability/exposition-merge.js';

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, string>;
}

export interface OpsEndpoints {
  metricsRegistry: Registry;
  /** The exposition of another thread of this process (its families the registry has already are left out). */
  moreMetrics?: () => Promise<string>;
  readiness: () => Promise<ReadinessReport>;
}

export function addOpsRoutes(app: FastifyInstance, ops: OpsEndpoints): void {
  app.get('/health', async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    const report = await ops.readiness();
    return reply.code(report.ready ? 200 : 503).send(report);
  });
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', ops.metricsRegistry.contentType);
    const own = await ops.metricsRegistry.metrics();
    return reply.send(ops.moreMetrics ? mergeExpositions(own, await ops.moreMetrics()) : own);
  });
}
