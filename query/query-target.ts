/**
 * Composition root of the query target: every read operation, reports.*,
 * and auth.login.
 */
import type { TargetModule } from '../shared/launcher/target.js';
import { authLoginOperation } from './auth/auth-login.js';

export const queryTarget: TargetModule = (services) => {
  services.stores.need('redis', 'influx');
  return {
    operations: [authLoginOperation({ tokens: services.tokens })],
  };
};
