/**
 * Bearer tokens (protocol.md §7.4, §7.5): compact HS256 JWTs carrying the
 * identity and the claims the ClearML SDK reads without verification.
 */
import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { apiError, type ApiError } from '../errors/error-catalogue.js';
import type { Identity } from './identity.js';

export const API_VERSION = '2.31';
export const SERVER_VERSION = '2.0.0';
export const DEFAULT_EXPIRATION_SEC = 2_592_000;
export const MAX_EXPIRATION_SEC = 31_536_000;

export interface TokenServiceOptions {
  secret: string;
  env: string;
  serverBuild: string;
  /** Further secrets whose tokens are accepted (never used to sign): the ClearML server's token secret in companion mode. */
  acceptedSecrets?: readonly string[];
  now?: () => number;
}

const MAX_CACHED = 10_000;

export class TokenService {
  /** Verified tokens: ingest checks a token per request, and HMAC plus JSON parsing is not free. */
  private readonly verified = new Map<string, { identity: Identity; exp: number }>();
  private readonly now: () => number;

  constructor(private readonly options: TokenServiceOptions) {
    this.now = options.now ?? Date.now;
  }

  issue(identity: Identity, expirationSec: number): string {
    const iat = Math.floor(this.now() / 1000);
    const claims = {
      auth_type: 'Bearer',
      identity: Object.fromEntries(Object.entries(identity).filter(([, v]) => v !== undefined && v !== '')),
      iat,
      exp: iat + expirationSec,
      session_id: randomUUID().replaceAll('-', ''),
      env: this.options.env,
      api_version: API_VERSION,
      server_version: SERVER_VERSION,
      server_build: this.options.serverBuild,
      feature_set: 'basic',
    };
    return jwt.sign(claims, this.options.secret, { algorithm: 'HS256' });
  }

  /** The identity a token carries; 401/30 when malformed, forged, expired or without identity. */
  verify(token: string): Identity {
    const nowSec = this.now() / 1000;
    const cached = this.verified.get(token);
    if (cached !== undefined) {
      if (nowSec < cached.exp) return cached.identity;
      this.verified.delete(token);
    }
    let payload: jwt.JwtPayload;
    try {
      const decoded = this.verifyWithAnySecret(token, Math.floor(nowSec));
      if (typeof decoded === 'string') throw invalidToken('failed parsing token', 'payload is not an object');
      payload = decoded;
    } catch (error) {
      throw isTokenError(error) ? error : invalidToken('invalid jwt token', jwtReason(token, error));
    }
    const identity = identityFrom(payload.identity);
    if (typeof payload.exp !== 'number') throw invalidToken('failed parsing token', 'missing exp');
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(token, { identity, exp: payload.exp });
    return identity;
  }

  /** Signed with the server secret, or else with one of the accepted ones; the server secret's error otherwise. */
  private verifyWithAnySecret(token: string, clockTimestamp: number): string | jwt.JwtPayload {
    const verify = (secret: string) => jwt.verify(token, secret, { algorithms: ['HS256'], clockTimestamp });
    try {
      return verify(this.options.secret);
    } catch (error) {
      if (!(error instanceof jwt.JsonWebTokenError) || error.message !== 'invalid signature') throw error;
      let failure: unknown = error;
      for (const secret of this.options.acceptedSecrets ?? []) {
        try {
          return verify(secret);
        } catch (other) {
          // A token this secret signed but that is expired (or otherwise bad) says so; a foreign signature tries the next.
          if (!(other instanceof jwt.JsonWebTokenError) || other.message !== 'invalid signature') failure = other;
        }
      }
      throw failure;
    }
  }
}

function isTokenError(error: unknown): error is ApiError {
  return error instanceof Error && error.name === 'ApiError';
}

function invalidToken(detail: string, reason: string): ApiError {
  return apiError('invalid_token', detail, [['reason', reason]]);
}

/** PyJWT's reasons, which ClearML forwards (`Not enough segments`, `Signature verification failed`, ...). */
function jwtReason(token: string, error: unknown): string {
  if (error instanceof jwt.TokenExpiredError) return 'Signature has expired';
  const message = error instanceof Error ? error.message : String(error);
  if (token.split('.').length < 3) return 'Not enough segments';
  if (message === 'invalid signature') return 'Signature verification failed';
  if (message === 'invalid algorithm' || message === 'jwt signature is required')
    return 'The specified alg value is not allowed';
  if (message === 'jwt malformed' || message.startsWith('invalid token') || message.includes('Unexpected token'))
    return 'Invalid token format';
  return message;
}

function identityFrom(value: unknown): Identity {
  if (value === null || typeof value !== 'object') throw invalidToken('failed parsing token', 'missing identity');
  const { user, company, role, user_name, company_name } = value as Record<string, unknown>;
  if (typeof user !== 'string' || typeof company !== 'string' || user === '' || company === '') {
    throw invalidToken('failed parsing token', 'identity without user or company');
  }
  return {
    user,
    company,
    role: typeof role === 'string' ? role : 'user',
    ...(typeof user_name === 'string' ? { user_name } : {}),
    ...(typeof company_name === 'string' ? { company_name } : {}),
  };
}
