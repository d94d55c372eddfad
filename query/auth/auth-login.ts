/**
 * auth.login (protocol.md §7.3): a token for the authenticated identity,
 * also set as the `clearml_token_basic` cookie for the web UI.
 */
import { TOKEN_COOKIE } from '../../shared/auth/authenticator.js';
import type { Identity } from '../../shared/auth/identity.js';
import { DEFAULT_EXPIRATION_SEC, MAX_EXPIRATION_SEC, type TokenService } from '../../shared/auth/token-service.js';
import { defineOperation } from '../../shared/protocol/operation.js';
import { int, requestSchema } from '../../shared/protocol/request-fields.js';

export interface AuthLoginDeps {
  tokens: TokenService;
  /** Remembers display names of identities (reports' user.name / company.name projections). */
  rememberIdentity?: (identity: Identity) => Promise<void>;
}

export function authLoginOperation(deps: AuthLoginDeps) {
  return defineOperation({
    name: 'auth.login',
    minVersion: '1.0',
    request: requestSchema({ expiration_sec: int({ min: 0, max: MAX_EXPIRATION_SEC }) }),
    async handle(request, context, extras) {
      const expiration = request.expiration_sec || DEFAULT_EXPIRATION_SEC;
      const token = deps.tokens.issue(context.identity, expiration);
      await deps.rememberIdentity?.(context.identity);
      extras.setHeader('set-cookie', `${TOKEN_COOKIE}=${token}; Max-Age=99999999999; Path=/; HttpOnly; SameSite=Lax`);
      return { token };
    },
  });
}
