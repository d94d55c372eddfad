/**
 * The HTTP front of every target: one fastify instance, one catch-all route
 * implementing the ClearML call pipeline of protocol.md §4 (path, endpoint,
 * authentication, impersonation, payload, validation, logic), plus /health,
 * /ready, /metrics and /openapi.json. Operations come from the registry the
 * target built.
 */
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { effectiveAuthorization, type Authenticator } from '../auth/authenticator.js';
import { withCallerCredential } from '../companion/caller-credential.js';
import type { Identity } from '../auth/identity.js';
import { apiError, ApiError, apiErrorWithMessage, isApiError } from '../errors/error-catalogue.js';
import type { Logger } from '../observability/logger.js';
import { createHttpMetrics } from '../observability/metrics.js';
import { buildCallData } from '../protocol/call-data.js';
import { ownValue } from '../protocol/client-object.js';
import { parseEndpointPath } from '../protocol/endpoint-path.js';
import {
  errorEnvelope,
  newCallId,
  streamedSuccessEnvelope,
  successEnvelope,
  type EnvelopeMeta,
} from '../protocol/envelope.js';
import { isRawReply, JsonStream, JsonText, type CallContext, type OperationRegistry } from '../protocol/operation.js';
import { parseRequest } from '../protocol/request-fields.js';
import { storeUnavailableAnswer } from '../stores/store-errors.js';
import { byteLimitedStream, readBodyLimited } from './body-reader.js';
import { BodyMemoryBudget, type BodyHold } from './body-memory-budget.js';
import { applyCors, assertCookieCallAllowed, type AllowedOrigins } from './cross-site.js';
import type { FairCallSlots } from './fair-call-slots.js';
import { openApiDocument } from './openapi-document.js';
import { addOpsRoutes, type OpsEndpoints } from './ops-routes.js';
import { drainUnreadBody, isLingering, isReadingRefusedBody, lingerAfterAnswer } from './unread-body.js';

export type { ReadinessReport } from './ops-routes.js';

export interface ApiServerOptions extends OpsEndpoints {
  logger: Logger;
  registry: OperationRegistry;
  authenticator: Authenticator;
  maxBodyBytes: number;
  /** The process's bound on request bodies held in memory at once (HTTP_MAX_BUFFERED_BODY_BYTES), shared with gRPC. */
  bodyBudget: BodyMemoryBudget;
  /** The process's slots of reads (READ_MAX_RUNNING_CALLS) and deletions (DELETE_MAX_RUNNING_CALLS), shared between companies in turn. */
  callSlots: { reads: FairCallSlots; deletions: FairCallSlots };
  pathPrefix?: string;
  /** Origins whose pages get credentialed CORS answers. */
  corsAllowedOrigins: AllowedOrigins;
  timeouts: HttpTimeouts;
}

/** Server timeouts (docs/configuration.md, HTTP_*_TIMEOUT_MS). */
export interface HttpTimeouts {
  /** Receiving the request headers. */
  headersMs: number;
  /** Receiving the whole request, body included. */
  requestMs: number;
  /** No bytes either way on a connection. */
  idleMs: number;
  /** An idle keep-alive connection between requests. */
  keepAliveMs: number;
}

/** How a listener's connections end: in bounded time, and at once at shutdown when idle. */
export function connectionOptions(timeouts: HttpTimeouts) {
  return {
    return503OnClosing: false,
    // Keep-alive clients must not hold shutdown: idle sockets close at once.
    forceCloseConnections: 'idle' as const,
    // A client that stalls (slowloris headers, a body that never ends) is cut off in bounded time.
    requestTimeout: timeouts.requestMs,
    connectionTimeout: timeouts.idleMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      // Node checks the two timeouts above on this period (30 s by default): keep it well under them.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
    },
  };
}

const IMPERSONATION_HEADERS = [
  'x-clearml-impersonate-as',
  'x-clearml-act-as',
  'x-trains-impersonate-as',
  'x-trains-act-as',
];

export function buildApiServer(options: ApiServerOptions): FastifyInstance {
  const { logger, registry, authenticator, maxBodyBytes } = options;
  const prefix = options.pathPrefix ?? '';
  const { corsAllowedOrigins, timeouts } = options;
  const httpMetrics = createHttpMetrics(options.metricsRegistry);
  const { bodyBudget, callSlots } = options;
  // Built once, from the operations registered by now (a target registers them all before its front is built).
  const openApiJson = JSON.stringify(openApiDocument({ registry, pathPrefix: prefix }));

  const app = Fastify({
    loggerInstance: logger as unknown as FastifyBaseLogger,
    // One log line per call is written by the pipeline itself (with endpoint and result code).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'call' }),
    genReqId: () => newCallId(),
    ...connectionOptions(timeouts),
    clientErrorHandler: (error, socket) => answerClientError(error, socket),
  });

  // Bodies are read by the pipeline itself, for every method (the SDK sends GET with a body).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.addHook('onRequest', async (request, reply) => {
    if (applyCors(request, reply, corsAllowedOrigins)) return reply;
  });
  // The hook answers every pre-flight; the route only lets fastify accept the method on any path.
  app.options('*', async (_request, reply) => reply);

  app.addHook('onSend', async (_request, reply) => {
    reply.header('server', 'clearml');
  });

  addOpsRoutes(app, options);
  app.get('/openapi.json', async (_request, reply) =>
    reply.header('content-type', 'application/json').send(openApiJson),
  );

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '*',
    handler: async (request, reply) => {
      const started = process.hrtime.bigint();
      // The socket's count covers what the answer writes however it is sent (text, stream, file).
      const socket = request.raw.socket;
      const writtenBefore = socket.bytesWritten;
      const meta: EnvelopeMeta = { id: request.id, trx: trxOf(request), endpoint: { name: '' } };
      try {
        await handleCall(request, reply, meta);
      } catch (error) {
        sendError(request, reply, meta, error);
      } finally {
        const name = meta.endpoint.actual ? meta.endpoint.name : 'unknown';
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        httpMetrics.requests.inc({ endpoint: name, code: String(reply.statusCode) });
        httpMetrics.duration.observe({ endpoint: name }, seconds);
        const observeBytes = () =>
          httpMetrics.responseBytes.observe({ endpoint: name }, socket.bytesWritten - writtenBefore);
        if (reply.raw.writableFinished) observeBytes();
        else reply.raw.once('finish', observeBytes);
        request.log.info(
          { endpoint: meta.endpoint.name, code: reply.statusCode, ms: Math.round(seconds * 1000) },
          'call',
        );
      }
    },
  });

  async function handleCall(request: FastifyRequest, reply: FastifyReply, meta: EnvelopeMeta): Promise<void> {
    const [rawPath = '', search = ''] = splitUrl(request.url);
    const path = stripPrefix(rawPath, prefix);
    const address = parseEndpointPath(path);
    meta.endpoint = { name: address.name, requested: address.version };
    const resolved = registry.resolve(address.name, address.version);
    if (resolved === undefined) {
      throw apiErrorWithMessage(
        'endpoint_not_found',
        `Unable to find endpoint for name ${address.name} and version ${address.version.text}`,
      );
    }
    meta.endpoint.actual = resolved.actualVersion;
    const authorization = headerValue(request, 'authorization');
    const identity = authenticator.authenticate(authorization, headerValue(request, 'cookie'));
    assertCookieCallAllowed(
      request.headers,
      authorization === undefined || authorization === '',
      resolved.operation.readOnly === true,
    );
    checkImpersonation(request, identity);

    const encoding = headerValue(request, 'content-encoding');
    if (encoding !== undefined && encoding !== '' && encoding.toLowerCase() !== 'identity') {
      drainUnreadBody(request.raw, true);
      reply.code(415).header('content-type', 'text/plain; charset=utf-8').header('connection', 'close');
      await reply.send(`Content encoding is not supported (${encoding})`);
      return;
    }
    const declaredLength = Number(headerValue(request, 'content-length') ?? 0);
    if (declaredLength > maxBodyBytes) throw tooLarge(maxBodyBytes);

    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const context: CallContext = {
      identity,
      callId: meta.id,
      // fastify's request logger is a pino child; its declared type lags pino's own.
      log: request.log as unknown as Logger,
      headers: request.headers,
      signal: abort.signal,
      receivedAt: Date.now(),
    };

    const { operation } = resolved;
    // Companion mode asks the ClearML server with the caller's own credential (shared/companion/).
    const credential = effectiveAuthorization(authorization, headerValue(request, 'cookie'));
    let data: unknown;
    const extraHeaders: Record<string, string> = {};
    // Given back once the call is answered: the call data parsed from a body lives until then.
    const hold = bodyBudget.hold(identity.company);
    // Taken before the body is read, so that a waiting call holds none of the body budget.
    const slots = operation.readOnly ? callSlots.reads : operation.deletion ? callSlots.deletions : undefined;
    const slot = await slots?.acquire(identity.company, abort.signal);
    try {
      const readWhole = (body: Readable) => readHeldBody(body, declaredLength, hold);
      if (operation.kind === 'stream') {
        const body = byteLimitedStream(request.raw, maxBodyBytes, () => tooLarge(maxBodyBytes));
        const contentType = headerValue(request, 'content-type');
        data = await withCallerCredential(credential, () =>
          operation.handle(body, { contentType, search, readWhole }, context),
        );
      } else {
        const body = await readWhole(request.raw);
        const callData = buildCallData(body, headerValue(request, 'content-type'), search);
        if (Array.isArray(callData)) throw apiError('validation_error', 'request body must be a JSON object');
        const parsed = parseRequest(operation.request, callData);
        data = await withCallerCredential(credential, () =>
          operation.handle(parsed, context, { setHeader: (name, value) => (extraHeaders[name] = value) }),
        );
      }
      await sendAnswer(reply, meta, data, extraHeaders);
    } finally {
      // Both outlive the handler: awaiting fastify's reply settles once the answer is written out or its
      // connection ends, so a streamed answer (its store cursor) and an unsent one (its memory) keep them.
      hold.release();
      slot?.();
    }
  }

  /**
   * A body read whole under the budget: its declared length is taken before a byte is read (refused
   * at once when it does not fit), a chunked body's bytes as they arrive.
   */
  function readHeldBody(body: Readable, declaredLength: number, hold: BodyHold): Promise<Buffer> {
    if (declaredLength > 0) hold.take(declaredLength);
    let prepaid = declaredLength;
    return readBodyLimited(
      body,
      maxBodyBytes,
      () => tooLarge(maxBodyBytes),
      (bytes) => {
        const beyond = bytes - prepaid;
        prepaid = Math.max(0, -beyond);
        if (beyond > 0) hold.take(beyond);
      },
    );
  }

  async function sendAnswer(
    reply: FastifyReply,
    meta: EnvelopeMeta,
    data: unknown,
    extraHeaders: Record<string, string>,
  ): Promise<void> {
    if (isRawReply(data)) {
      reply.code(200).headers(data.headers);
      await reply.send(data.body);
      return;
    }
    reply.code(200).headers(extraHeaders).header('content-type', 'application/json');
    if (data instanceof JsonStream) {
      await reply.send(Readable.from(streamedSuccessEnvelope(meta, data.chunks()), { objectMode: false }));
      return;
    }
    await reply.send(successEnvelope(meta, data instanceof JsonText ? data.json : JSON.stringify(data ?? {})));
  }

  function sendError(request: FastifyRequest, reply: FastifyReply, meta: EnvelopeMeta, error: unknown): void {
    if (reply.sent) {
      request.log.warn({ err: error }, 'error after the answer was sent');
      return;
    }
    // Asked of the response's socket: the request's is dropped, and `aborted` set, when the pipeline
    // itself stops reading a body (413), while the connection can still carry the answer.
    if (reply.raw.socket?.destroyed === true) {
      // The client closed the connection, or a timeout closed it, before the request was read:
      // nobody is left to answer, and it is no failure of ours (nginx's 499 in the metrics).
      request.log.info({ err: error }, 'connection closed before the answer');
      reply.code(CLIENT_CLOSED_REQUEST);
      return;
    }
    let apiErr: ApiError;
    if (isApiError(error)) {
      apiErr = error;
      if (apiErr.httpStatus >= 500)
        request.log.warn({ err: error.cause ?? error, code: apiErr.httpStatus }, apiErr.message);
    } else {
      // A store that timed out or is unreachable is transient (503); anything else is a fault of ours.
      const unavailable = storeUnavailableAnswer(error);
      if (unavailable) request.log.warn({ err: error }, unavailable.message);
      else request.log.error({ err: error }, 'unexpected failure');
      apiErr = unavailable ?? apiError('internal_error');
    }
    if (!drainUnreadBody(request.raw, apiErr.id === 'body_too_large')) reply.header('connection', 'close');
    reply.code(apiErr.httpStatus).headers(apiErr.headers).header('content-type', 'application/json');
    void reply.send(errorEnvelope(meta, apiErr));
  }

  return app;
}

/** Status recorded (never sent) for a call whose connection closed before it could be answered. */
const CLIENT_CLOSED_REQUEST = 499;

function tooLarge(limit: number): ApiError {
  return apiError('body_too_large', `limit ${limit} bytes`);
}

function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)];
}

function stripPrefix(path: string, prefix: string): string {
  if (prefix === '') return path;
  if (path === prefix || path.startsWith(`${prefix}/`)) return path.slice(prefix.length);
  return path;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = ownValue(request.headers, name) as string | string[] | undefined;
  return Array.isArray(value) ? value[0] : value;
}

function trxOf(request: FastifyRequest): string {
  return headerValue(request, 'x-clearml-trx') || headerValue(request, 'x-trains-trx') || request.id;
}

function checkImpersonation(request: FastifyRequest, identity: Identity): void {
  for (const header of IMPERSONATION_HEADERS) {
    if (ownValue(request.headers, header) !== undefined) {
      throw apiError('impersonation_not_allowed', undefined, [['role', identity.role]]);
    }
  }
}

/**
 * A request that never became a call (stalled past a timeout, malformed
 * HTTP, headers over Node's limit) still gets an envelope, then the socket
 * closes. Nothing is written to a socket that has already begun an answer.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Answered, and closing with its own bound (unread-body.ts).
  if (isLingering(socket)) return;
  // Its call was answered; only the rest of a refused body was still being read (unread-body.ts).
  if (isReadingRefusedBody(socket)) {
    socket.destroy();
    return;
  }
  const apiErr =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? apiError('request_timeout')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? apiError('headers_too_large')
        : apiError('malformed_body');
  const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answered) {
    const id = newCallId();
    const body = errorEnvelope({ id, trx: id, endpoint: { name: '' } }, apiErr);
    socket.write(
      `HTTP/1.1 ${apiErr.httpStatus} ${apiErr.entry.base}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nServer: clearml\r\n\r\n${body}`,
    );
    // A client still sending (a head over the limit, a body behind a bad request line) reads the answer
    // rather than a reset; a stalled one (a timeout) sends nothing more, and is cut at once.
    if (error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
      lingerAfterAnswer(socket);
      return;
    }
  }
  socket.destroy();
}
