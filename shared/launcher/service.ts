/**
 * Builds one process from a target name: services, the target modules
 * (`all` = ingest + writer + query on one HTTP port), the HTTP front, and
 * the ordered start/stop of every component.
 */
import type { Registry } from 'prom-client';
import { Authenticator } from '../auth/authenticator.js';
import { loadCredentials } from '../auth/credentials.js';
import { resolveSigningSecret } from '../auth/signing-secret.js';
import { TokenService } from '../auth/token-service.js';
import type { Config } from '../config/config.js';
import { buildApiServer, type ReadinessReport } from '../http/api-server.js';
import { BodyMemoryBudget } from '../http/body-memory-budget.js';
import { ConnectionCap, connectionCapFor, openFileLimit } from '../http/connection-cap.js';
import { FairCallSlots } from '../http/fair-call-slots.js';
import { buildOpsServer } from '../http/ops-server.js';
import type { Logger } from '../observability/logger.js';
import { createMetricsRegistry } from '../observability/metrics.js';
import { OperationRegistry } from '../protocol/operation.js';
import { withDeadline } from '../stores/deadline.js';
import type { Component, Phase, ReadinessCheck } from './component.js';
import { StoreHub } from './store-hub.js';
import type { ProcessServices, TargetModule, TargetName } from './target.js';
import { WriterThreadHost } from './writer-thread-host.js';

export interface RunningService {
  /** The HTTP port actually bound (API_PORT 0 picks one). */
  readonly httpPort: number;
  readonly services: ProcessServices;
  /** The operations this process serves (tests send hostile input to each). */
  readonly registry: OperationRegistry;
  stop(): Promise<void>;
}

export interface ServiceDefinition {
  target: TargetName;
  config: Readonly<Config>;
  logger: Logger;
  /** The target modules, by name; the launcher's main passes the real ones. */
  modules: Partial<Record<Exclude<TargetName, 'all'>, TargetModule>>;
  /**
   * `all` only: run the writer on a thread of its own, started from this
   * module (the built writer-thread.js), instead of on this event loop.
   */
  writerThread?: { entry: URL; logFormat: 'json' | 'pretty' };
  /** False for a process part without an HTTP front of its own (the writer thread). Default true. */
  serveHttp?: boolean;
  /** The `target` label of its metrics, when not the target's name (the writer thread of `all`). */
  metricsTarget?: string;
}

const START_ORDER: Phase[] = ['store', 'worker', 'front'];

export async function startService(definition: ServiceDefinition): Promise<RunningService> {
  const { target, config, logger } = definition;
  const threaded = target === 'all' && definition.writerThread !== undefined;
  const names =
    target === 'all'
      ? threaded
        ? (['ingest', 'query'] as const)
        : (['ingest', 'writer', 'query'] as const)
      : ([target] as const);
  const serveHttp = definition.serveHttp !== false;
  const metrics = createMetricsRegistry(definition.metricsTarget ?? target, { processWide: serveHttp });
  const stores = new StoreHub(config, logger, `clearml-${target}-${process.pid}`, metrics);
  const signingSecret = resolveSigningSecret(config.AUTH_SECRET, config.DATA_DIR);
  const tokens = new TokenService({
    secret: signingSecret,
    env: config.DEPLOYMENT_ENV,
    serverBuild: config.SERVER_BUILD,
    // Companion mode: tokens of the ClearML server beside this service (its login, its cookie) are the callers' tokens.
    acceptedSecrets: config.CLEARML_TOKEN_SECRET ? [config.CLEARML_TOKEN_SECRET] : [],
  });
  const authenticator = new Authenticator(loadCredentials(config.CREDENTIALS_FILE), tokens);
  const readiness: ReadinessCheck[] = [];
  const services: ProcessServices = {
    config,
    logger,
    metrics,
    stores,
    authenticator,
    tokens,
    signingSecret,
    boundPorts: new Map(),
    bodyBudget: new BodyMemoryBudget(config.HTTP_MAX_BUFFERED_BODY_BYTES, metrics),
    connectionCap: new ConnectionCap(connectionsPerListener(config, logger), metrics),
    // Read at call time: the target modules below add their checks to the list.
    readiness: () => readinessReport(readiness, config.READY_TIMEOUT_MS),
  };

  const registry = new OperationRegistry();
  const components: Component[] = [];
  for (const name of names) {
    const module = definition.modules[name];
    if (module === undefined) throw new Error(`target module ${name} is not available`);
    const parts = module(services);
    registry.register(...(parts.operations ?? []));
    components.push(...(parts.components ?? []));
    readiness.push(...(parts.readiness ?? []));
  }
  readiness.unshift(...stores.readinessChecks());
  const writerThread = threaded
    ? new WriterThreadHost(
        definition.writerThread!.entry,
        { config, logFormat: definition.writerThread!.logFormat },
        logger,
        config.READY_TIMEOUT_MS,
      )
    : undefined;
  if (writerThread) {
    components.push(writerThread.component);
    readiness.push(writerThread.readiness);
  }

  const timeouts = {
    headersMs: config.HTTP_HEADERS_TIMEOUT_MS,
    requestMs: config.HTTP_REQUEST_TIMEOUT_MS,
    idleMs: config.HTTP_IDLE_TIMEOUT_MS,
    keepAliveMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
  const moreMetrics = writerThread ? () => writerThread.metrics() : undefined;
  const app = serveHttp
    ? buildApiServer({
        logger,
        registry,
        authenticator,
        metricsRegistry: metrics,
        moreMetrics,
        readiness: services.readiness,
        maxBodyBytes: config.MAX_BODY_BYTES,
        bodyBudget: services.bodyBudget,
        callSlots: callSlots(config, metrics),
        pathPrefix: config.API_PATH_PREFIX,
        corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
        timeouts,
      })
    : undefined;
  let httpPort = config.API_PORT;
  if (app)
    components.push({
      name: 'http',
      phase: 'front',
      start: async () => {
        services.connectionCap.apply(app.server, 'http');
        await app.listen({ host: config.API_HOST, port: config.API_PORT });
        const address = app.server.address();
        if (address && typeof address === 'object') httpPort = address.port;
        services.boundPorts.set('http', httpPort);
        logger.info(
          { host: config.API_HOST, port: httpPort, target, operations: registry.names().length },
          'HTTP API listening',
        );
      },
      stop: () => app.close(),
    });

  const opsPort = config.OPS_PORT;
  if (serveHttp && opsPort !== undefined) {
    const ops = buildOpsServer({
      logger,
      metricsRegistry: metrics,
      moreMetrics,
      readiness: services.readiness,
      timeouts,
    });
    components.push({
      name: 'ops',
      phase: 'front',
      start: async () => {
        services.connectionCap.apply(ops.server, 'ops', config.OPS_MAX_CONNECTIONS);
        const host = config.OPS_HOST ?? config.API_HOST;
        await ops.listen({ host, port: opsPort });
        const address = ops.server.address();
        const bound = address && typeof address === 'object' ? address.port : opsPort;
        services.boundPorts.set('ops', bound);
        logger.info({ host, port: bound, target }, 'operations listener (/health, /ready, /metrics) listening');
      },
      stop: () => ops.close(),
    });
  }

  const ordered = [...stores.components(), ...components].sort(
    (a, b) => START_ORDER.indexOf(a.phase) - START_ORDER.indexOf(b.phase),
  );
  const started: Component[] = [];
  const stopAll = async () => {
    for (const phase of [...START_ORDER].reverse()) {
      const inPhase = started.filter((c) => c.phase === phase).reverse();
      await Promise.all(inPhase.map((c) => stopWithTimeout(c, config.SHUTDOWN_PHASE_TIMEOUT_MS, logger)));
    }
    started.length = 0;
  };
  try {
    for (const component of ordered) {
      await component.start();
      started.push(component);
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    get httpPort() {
      return httpPort;
    },
    services,
    registry,
    stop: stopAll,
  };
}

/** The reads and the deletions of the process, each shared between companies (shared/http/fair-call-slots.ts). */
function callSlots(config: Readonly<Config>, metrics: Registry): { reads: FairCallSlots; deletions: FairCallSlots } {
  return {
    reads: new FairCallSlots(
      {
        name: 'read',
        limitSetting: 'READ_MAX_RUNNING_CALLS',
        waitingSetting: 'READ_MAX_WAITING_CALLS',
        refusal: 'too_many_reads',
      },
      config.READ_MAX_RUNNING_CALLS,
      config.READ_MAX_WAITING_CALLS,
      metrics,
    ),
    deletions: new FairCallSlots(
      {
        name: 'deletion',
        limitSetting: 'DELETE_MAX_RUNNING_CALLS',
        waitingSetting: 'DELETE_MAX_WAITING_CALLS',
        refusal: 'too_many_deletions',
      },
      config.DELETE_MAX_RUNNING_CALLS,
      config.DELETE_MAX_WAITING_CALLS,
      metrics,
    ),
  };
}

async function stopWithTimeout(component: Component, timeoutMs: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([component.stop().then(() => 'stopped' as const), timeout]);
    if (outcome === 'timeout') logger.warn({ component: component.name, timeoutMs }, 'stop timed out; going on');
  } catch (error) {
    logger.warn({ component: component.name, err: error }, 'stop failed; going on');
  } finally {
    clearTimeout(timer);
  }
}

async function readinessReport(checks: ReadinessCheck[], timeoutMs: number): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withDeadline(
          c.check(),
          timeoutMs,
          () => new Error(`no answer within ${timeoutMs} ms (READY_TIMEOUT_MS)`),
        );
        return [c.name, 'ok'] as const;
      } catch (error) {
        return [c.name, (error as Error).message] as const;
      }
    }),
  );
  return { ready: results.every(([, r]) => r === 'ok'), checks: Object.fromEntries(results) };
}

/** MAX_CONNECTIONS, or fewer where the process's open-file limit would not hold both listeners full and its stores. */
function connectionsPerListener(config: Readonly<Config>, logger: Logger): number {
  const openFiles = openFileLimit();
  const cap = connectionCapFor(
    config.MAX_CONNECTIONS,
    openFiles,
    config.OPS_PORT === undefined ? 0 : config.OPS_MAX_CONNECTIONS,
  );
  if (cap < config.MAX_CONNECTIONS)
    logger.warn(
      { MAX_CONNECTIONS: config.MAX_CONNECTIONS, openFiles, connectionsPerListener: cap },
      'the open-file limit holds fewer connections than MAX_CONNECTIONS: raise it (ulimit -n, LimitNOFILE) to accept more',
    );
  return cap;
}
