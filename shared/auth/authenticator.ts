/**
 * Who is calling (protocol.md §7.2): the Authorization header, or the
 * `clearml_token_basic` cookie taken as a Bearer token. Basic is accepted on
 * every endpoint; Bearer must be a token issued by auth.login.
 */
import { apiError } from '../errors/error-catalogue.js';
import type { CredentialStore } from './credentials.js';
import type { Identity } from './identity.js';
import type { TokenService } from './token-service.js';

export const TOKEN_COOKIE = 'clearml_token_basic';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class Authenticator {
  constructor(
    private readonly credentials: CredentialStore,
    private readonly tokens: TokenService,
  ) {}

  /** Authenticates from an Authorization header value and a Cookie header value. */
  authenticate(authorization: string | undefined, cookieHeader?: string): Identity {
    const header = effectiveAuthorization(authorization, cookieHeader);
    if (header === undefined) throw apiError('missing_credentials');
    const space = header.indexOf(' ');
    const scheme = space < 0 ? header : header.slice(0, space);
    const data = space < 0 ? '' : header.slice(space + 1).trim();
    if (scheme === 'Basic') return this.basic(data);
    if (scheme === 'Bearer') return this.tokens.verify(data);
    throw apiError('bad_auth_header_type');
  }

  private basic(data: string): Identity {
    if (data.length % 4 !== 0) throw apiError('malformed_credentials', 'Incorrect padding');
    if (!BASE64.test(data)) throw apiError('malformed_credentials', 'Invalid base64-encoded string');
    const decoded = Buffer.from(data, 'base64').toString('latin1');
    const colon = decoded.indexOf(':');
    const accessKey = colon < 0 ? decoded : decoded.slice(0, colon);
    const secretKey = colon < 0 ? '' : decoded.slice(colon + 1);
    const identity = this.credentials.verify(accessKey, secretKey);
    if (identity === undefined) throw apiError('invalid_credentials', 'failed to locate provided credentials');
    return identity;
  }
}

/** The Authorization header a call counts as presenting: its own, else `Bearer <clearml_token_basic cookie>`. */
export function effectiveAuthorization(
  authorization: string | undefined,
  cookieHeader: string | undefined,
): string | undefined {
  if (authorization !== undefined && authorization !== '') return authorization;
  const token = cookieValue(cookieHeader, TOKEN_COOKIE);
  return token === undefined ? undefined : `Bearer ${token}`;
}

export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return undefined;
}
