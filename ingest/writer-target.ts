/**
 * Composition root of the writer target: JetStream consumers that store
 * events into InfluxDB and Redis (ingest/writer/).
 */
import type { TargetModule } from '../shared/launcher/target.js';
import { createEventsWriter } from './writer/events-writer.js';

export const writerTarget: TargetModule = (services) => {
  services.stores.need('nats', 'influx', 'redis');
  const writer = createEventsWriter(services);
  return { components: [writer.component], readiness: [writer.readiness] };
};
