/**
 * Composition root of the ingest target: events.add and events.add_batch
 * over HTTP and gRPC, published to NATS JetStream.
 */
import type { TargetModule } from '../shared/launcher/target.js';

export const ingestTarget: TargetModule = (services) => {
  services.stores.need('nats', 'redis');
  return {};
};
