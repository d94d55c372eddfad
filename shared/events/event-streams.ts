/**
 * The JetStream streams of the events pipeline, created (or checked) by
 * every ingest and writer process at start: idempotent, so any process may
 * come first.
 *
 * - `<prefix>_events`: subjects `<prefix>.ev.<partition>`, file storage,
 *   work-queue retention (a message is gone once a writer acknowledged it),
 *   a de-duplication window for client retries (Nats-Msg-Id).
 * - `<prefix>_dead`: dead letters, `<prefix>.dead.<partition>`, kept 30 days.
 */
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager } from 'nats';
import { deadLetterStreamName, streamName } from './wire-format.js';

const DAY_NS = 24 * 60 * 60 * 1e9;

export async function ensureEventStreams(jsm: JetStreamManager, prefix: string, options: { replicas?: number } = {}): Promise<void> {
  await ensureStream(jsm, {
    name: streamName(prefix),
    subjects: [`${prefix}.ev.*`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    discard: DiscardPolicy.New,
    duplicate_window: 2 * 60 * 1e9,
    num_replicas: options.replicas ?? 1,
  });
  await ensureStream(jsm, {
    name: deadLetterStreamName(prefix),
    subjects: [`${prefix}.dead.*`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 30 * DAY_NS,
    num_replicas: options.replicas ?? 1,
  });
}

async function ensureStream(jsm: JetStreamManager, config: Parameters<JetStreamManager['streams']['add']>[0]): Promise<void> {
  try {
    await jsm.streams.info(config.name!);
  } catch (error) {
    if (!/stream not found/i.test((error as Error).message)) throw error;
    try {
      await jsm.streams.add(config);
    } catch (addError) {
      // Another process created it between our check and our add.
      if (!/already in use|exists/i.test((addError as Error).message)) throw addError;
    }
  }
}
