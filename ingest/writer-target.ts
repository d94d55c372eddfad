/**
 * Composition root of the writer target: JetStream consumers that store
 * events into InfluxDB and Redis (ingest/writer/).
 */
import { exportEventStreamMetrics } from './event-stream-metrics.js';
import { eventStreamSettings, EventStreamKeeper } from '../shared/events/event-streams.js';
import type { TargetModule } from '../shared/launcher/target.js';
import { createEventsWriter } from './writer/events-writer.js';

export const writerTarget: TargetModule = (services) => {
  const { stores, config, logger } = services;
  stores.need('nats', 'influx', 'redis');
  const writer = createEventsWriter(services);
  // Not ready while the events or dead-letter stream is missing; a missing one is created again.
  const jsm = () => stores.nats.jetstreamManager();
  const eventStreams = new EventStreamKeeper({ settings: eventStreamSettings(config), jsm, logger, deadLetters: true });
  exportEventStreamMetrics(services.metrics, eventStreamSettings(config), jsm);
  return {
    components: [writer.component],
    readiness: [writer.readiness, { name: 'writer-streams', check: () => eventStreams.check() }],
  };
};
