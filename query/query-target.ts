/**
 * Composition root of the query target: every read operation, reports.*,
 * and auth.login.
 */
import type { TargetModule } from '../shared/launcher/target.js';
import { authLoginOperation } from './auth/auth-login.js';
import { eventOperations } from './events/event-operations.js';
import { QueryDeps } from './query-deps.js';
import { rememberIdentityHook } from './reports/identity-directory.js';
import { reportsOperations } from './reports/reports-operations.js';

export const queryTarget: TargetModule = (services) => {
  // NATS carries deletions to the writers (they run in stream order after the events they cover).
  services.stores.need('redis', 'influx', 'nats');
  const deps = new QueryDeps(services.config, services.logger, services.stores, services.signingSecret);
  return {
    operations: [
      authLoginOperation({ tokens: services.tokens, rememberIdentity: rememberIdentityHook(deps) }),
      ...eventOperations(deps),
      ...reportsOperations(deps),
    ],
  };
};
