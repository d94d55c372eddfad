/**
 * What another site's page may do with a logged-in browser (issue 10 item 5;
 * docs/protocol.md, "Cross-site requests"). Two rules:
 *
 * - CORS: an Origin is echoed with credentials only when it is configured
 *   (CORS_ALLOWED_ORIGINS), so no other page can read an answer. Pre-flights
 *   still answer 200 with an empty body (protocol.md §2.2), just without the
 *   allow headers for an origin that is not configured.
 * - A call authenticated by the `clearml_token_basic` cookie must carry a
 *   ClearML client header unless its operation only reads. The web UI sends
 *   `X-Allegro-Client` on every call; a cross-site form, link or image cannot
 *   send a custom header, and a script can only after a pre-flight that the
 *   first rule refuses. SameSite=Lax alone does not cover top-level GET
 *   navigations (every operation is served for GET with a query string) nor
 *   sibling sites of the same registrable domain.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../errors/error-catalogue.js';

/** Headers only a ClearML client sets: the web UI's, the SDK's, and the SDK's old name. */
export const CLIENT_HEADERS = ['x-allegro-client', 'x-clearml-client', 'x-trains-client'] as const;

/** `*` (any origin: the contract's literal behaviour) or the exact origins allowed. */
export type AllowedOrigins = '*' | readonly string[];

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const PREFLIGHT_MAX_AGE_S = '600';

export function isOriginAllowed(origin: string | undefined, allowed: AllowedOrigins): origin is string {
  if (origin === undefined || origin === '') return false;
  return allowed === '*' || allowed.includes(origin);
}

/**
 * Adds the CORS headers an allowed Origin gets; answers a pre-flight
 * (OPTIONS) itself, with 200 and an empty body whatever the origin. Returns
 * true when the request was answered.
 */
export function applyCors(request: FastifyRequest, reply: FastifyReply, allowed: AllowedOrigins): boolean {
  const origin = request.headers.origin;
  reply.header('vary', 'Origin');
  const permitted = isOriginAllowed(origin, allowed);
  if (permitted) {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
  }
  if (request.method !== 'OPTIONS') return false;
  if (permitted) {
    reply.header('access-control-allow-methods', ALLOWED_METHODS);
    const wanted = request.headers['access-control-request-headers'];
    if (wanted !== undefined) reply.header('access-control-allow-headers', wanted);
    reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_S);
  }
  void reply.code(200).header('content-length', '0').send();
  return true;
}

/** Throws 403 when a cookie-authenticated call that may change state lacks every client header. */
export function assertCookieCallAllowed(
  headers: FastifyRequest['headers'],
  viaCookie: boolean,
  readOnly: boolean,
): void {
  if (!viaCookie || readOnly) return;
  const hasClientHeader = CLIENT_HEADERS.some((name) => {
    const value = Object.hasOwn(headers, name) ? headers[name] : undefined;
    return typeof value === 'string' ? value.trim() !== '' : Array.isArray(value) && value.length > 0;
  });
  if (!hasClientHeader) throw apiError('cookie_call_without_client_header');
}
