/**
 * Composition root of the writer target: JetStream consumers that store
 * events into InfluxDB and Redis.
 */
import type { TargetModule } from '../shared/launcher/target.js';

export const writerTarget: TargetModule = (services) => {
  services.stores.need('nats', 'influx', 'redis');
  return {};
};
