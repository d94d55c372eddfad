/**
 * The event streams' fill, read from JetStream when Prometheus scrapes (so a
 * value is never older than the scrape): stream bytes and messages, the
 * stream's size limit (NATS_STREAM_MAX_BYTES) and the account's JetStream
 * storage. nats-server's own `max_file_store` is not visible to a client
 * (the account reports no limit); watch it with NATS's exporter.
 * Exported by ingest and writer processes, once per process.
 */
import type { JetStreamManager } from 'nats';
import { Gauge, type Registry } from '../shared/observability/metrics.js';
import type { EventStreamSettings } from '../shared/events/event-streams.js';
import { deadLetterStreamName, streamName } from '../shared/events/wire-format.js';

type StreamRole = 'events' | 'dead';

interface Sample {
  streams: Array<{ role: StreamRole; bytes: number; messages: number; maxBytes: number }>;
  accountBytes: number;
  accountMaxBytes: number;
}

/** Gauges of one scrape share one read of JetStream. */
const SAMPLE_REUSE_MS = 1_000;

export function exportEventStreamMetrics(
  registry: Registry,
  settings: EventStreamSettings,
  jsm: () => Promise<JetStreamManager>,
): void {
  if (registry.getSingleMetric('clearml_jetstream_stream_bytes') !== undefined) return;
  let last: { at: number; sample: Promise<Sample | undefined> } | undefined;
  const sample = (): Promise<Sample | undefined> => {
    if (last === undefined || Date.now() - last.at > SAMPLE_REUSE_MS)
      last = { at: Date.now(), sample: read(settings, jsm).catch(() => undefined) };
    return last.sample;
  };
  const registers = [registry];
  const perStream = (name: string, help: string, value: (s: Sample['streams'][number]) => number | undefined) =>
    new Gauge<'stream'>({
      name,
      help,
      labelNames: ['stream'],
      registers,
      async collect() {
        // Unreadable (NATS down): no value rather than a stale one.
        this.reset();
        for (const s of (await sample())?.streams ?? []) {
          const v = value(s);
          if (v !== undefined) this.set({ stream: s.role }, v);
        }
      },
    });
  perStream(
    'clearml_jetstream_stream_bytes',
    'Bytes stored in a JetStream stream of the pipeline (events: waiting for the writers; dead: dead letters)',
    (s) => s.bytes,
  );
  perStream(
    'clearml_jetstream_stream_messages',
    'Messages stored in a JetStream stream of the pipeline',
    (s) => s.messages,
  );
  perStream(
    'clearml_jetstream_stream_max_bytes',
    "A stream's size limit (events: NATS_STREAM_MAX_BYTES); absent when it has none",
    (s) => (s.maxBytes > 0 ? s.maxBytes : undefined),
  );
  const account = (name: string, help: string, value: (s: Sample) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.reset();
        const s = await sample();
        const v = s === undefined ? undefined : value(s);
        if (v !== undefined) this.set(v);
      },
    });
  account(
    'clearml_jetstream_account_storage_bytes',
    "File storage used by the NATS account's JetStream streams (all of them)",
    (s) => s.accountBytes,
  );
  account(
    'clearml_jetstream_account_storage_max_bytes',
    "The NATS account's JetStream file storage limit; absent when it has none",
    (s) => (s.accountMaxBytes > 0 ? s.accountMaxBytes : undefined),
  );
}

async function read(settings: EventStreamSettings, jsmOf: () => Promise<JetStreamManager>): Promise<Sample> {
  const jsm = await jsmOf();
  const roles: Array<[StreamRole, string]> = [
    ['events', streamName(settings.prefix)],
    ['dead', deadLetterStreamName(settings.prefix)],
  ];
  const [account, ...infos] = await Promise.all([
    jsm.getAccountInfo(),
    ...roles.map(([, name]) => jsm.streams.info(name).catch(() => undefined)),
  ]);
  const streams: Sample['streams'] = [];
  infos.forEach((info, i) => {
    if (info)
      streams.push({
        role: roles[i]![0],
        bytes: info.state.bytes,
        messages: info.state.messages,
        maxBytes: info.config.max_bytes,
      });
  });
  return { streams, accountBytes: account.storage, accountMaxBytes: account.limits.max_storage };
}
