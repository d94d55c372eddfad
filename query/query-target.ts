/**
 * Composition root of the query target: every read operation, reports.*,
 * and auth.login.
 */
import type { TargetModule } from '../shared/launcher/target.js';
import { authLoginOperation } from './auth/auth-login.js';
import { QueryDeps } from './query-deps.js';

export const queryTarget: TargetModule = (services) => {
  // NATS carries deletions to the writers (they run in stream order after the events they cover).
  services.stores.need('redis', 'influx', 'nats');
  const deps = new QueryDeps(services.config, services.logger, services.stores, services.signingSecret);
  void deps; // the read and reports operations are wired here as they land
  return {
    operations: [authLoginOperation({ tokens: services.tokens })],
  };
};
