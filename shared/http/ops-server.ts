/**
 * The operations listener (OPS_PORT): /health, /ready and /metrics only, with
 * a connection cap of its own (OPS_MAX_CONNECTIONS). On the API listener a
 * flood of connections leaves the probes no place, and a liveness probe that
 * fails there restarts a process that was serving everyone it had accepted.
 * docs/operations.md, "The operations listener".
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';
import { newCallId } from '../protocol/envelope.js';
import { connectionOptions, type HttpTimeouts } from './api-server.js';
import { addOpsRoutes, type OpsEndpoints } from './ops-routes.js';

export interface OpsServerOptions extends OpsEndpoints {
  logger: Logger;
  timeouts: HttpTimeouts;
}

export function buildOpsServer(options: OpsServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger as unknown as FastifyBaseLogger,
    // Probes and scrapes every few seconds: a line each would drown the log.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'call' }),
    genReqId: () => newCallId(),
    ...connectionOptions(options.timeouts),
  });
  addOpsRoutes(app, options);
  app.setNotFoundHandler(async (_request, reply) =>
    reply.code(404).send({ error: 'this listener (OPS_PORT) serves /health, /ready and /metrics only' }),
  );
  app.addHook('onSend', async (_request, reply) => {
    reply.header('server', 'clearml');
  });
  return app;
}
