/**
 * The JetStream streams of the events pipeline, created (or checked) by
 * every ingest and writer process at start: idempotent, so any process may
 * come first.
 *
 * - `<prefix>_events`: subjects `<prefix>.ev.<partition>`, file storage,
 *   work-queue retention (a message is gone once a writer acknowledged it),
 *   a de-duplication window for client retries (Nats-Msg-Id).
 * - `<prefix>_dead`: dead letters, `<prefix>.dead.<partition>`, kept 30 days.
 *
 * A stream deleted while the service runs is created again by the
 * EventStreamKeeper of an ingest or writer process, as soon as its /ready
 * check or a failed publish finds it missing (docs/ingest.md).
 */
import { DiscardPolicy, RetentionPolicy, StorageType, type JetStreamManager, type StreamInfo } from 'nats';
import type { Logger } from '../observability/logger.js';
import { deadLetterStreamName, streamName } from './wire-format.js';

const DAY_NS = 24 * 60 * 60 * 1e9;
/** A failed publish triggers at most one check per this long. */
const SUSPECT_INTERVAL_MS = 1_000;

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
    if (!isStreamNotFound(error)) throw error;
    try {
      await jsm.streams.add(config);
    } catch (addError) {
      // Another process created it between our check and our add.
      if (!/already in use|exists/i.test((addError as Error).message)) throw addError;
    }
  }
}

export function isStreamNotFound(error: unknown): boolean {
  const e = error as { api_error?: { err_code?: number }; message?: unknown };
  return e?.api_error?.err_code === 10059 || /stream not found/i.test(String(e?.message ?? ''));
}

export interface EventStreamKeeperOptions {
  prefix: string;
  /** A JetStream manager whose calls time out (NatsStore.jetstreamManager). */
  jsm: () => Promise<JetStreamManager>;
  logger: Logger;
  /** Writer: the dead-letter stream must exist too (ingest does not use it). */
  deadLetters?: boolean;
  /**
   * Ingest: also not ready while the events stream is at its limits (it
   * refuses new messages). The room one message needs, in bytes.
   */
  publishRoomBytes?: () => number;
}

/** Keeps the event streams in existence, and says on /ready whether they can take events. */
export class EventStreamKeeper {
  private creating?: Promise<void>;
  private lastSuspect = 0;

  constructor(private readonly options: EventStreamKeeperOptions) {}

  /** Creates the streams that are missing (start-up). */
  async ensure(): Promise<void> {
    await ensureEventStreams(await this.options.jsm(), this.options.prefix);
  }

  /** Readiness: rejects with the reason the streams cannot take events now; a missing stream is created again meanwhile. */
  async check(): Promise<void> {
    const jsm = await this.options.jsm();
    const { prefix } = this.options;
    const [events] = await Promise.all([this.info(jsm, streamName(prefix)), this.options.deadLetters ? this.info(jsm, deadLetterStreamName(prefix)) : undefined]);
    const room = this.options.publishRoomBytes;
    if (room) {
      const reason = fullReason(events, room());
      if (reason) throw new Error(`events stream ${events.config.name} is full (${reason})`);
    }
  }

  /** A publish failed: the stream may be gone. Checks soon, at most once a second. */
  suspect(): void {
    const now = Date.now();
    if (now - this.lastSuspect < SUSPECT_INTERVAL_MS) return;
    this.lastSuspect = now;
    this.check().catch(() => undefined);
  }

  private async info(jsm: JetStreamManager, name: string): Promise<StreamInfo> {
    try {
      const info = await jsm.streams.info(name);
      if (info.config.sealed) throw new Error(`stream ${name} is sealed`);
      return info;
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
      this.recreate();
      throw new Error(`stream ${name} is missing; creating it again`, { cause: error });
    }
  }

  private recreate(): void {
    this.creating ??= this.ensure()
      .then(() => this.options.logger.warn({ prefix: this.options.prefix }, 'event stream was missing: created it again'))
      .catch((error: unknown) => this.options.logger.warn({ err: error }, 'could not create the missing event stream; next check tries again'))
      .finally(() => (this.creating = undefined));
  }
}

/** Why a stream with DiscardPolicy.New would refuse the next message, if it would. */
function fullReason(info: StreamInfo, roomBytes: number): string | undefined {
  const { config, state } = info;
  if (config.max_msgs > 0 && state.messages >= config.max_msgs) return `max_msgs ${config.max_msgs} reached`;
  if (config.max_bytes > 0 && state.bytes + roomBytes > config.max_bytes) return `max_bytes ${config.max_bytes}: ${state.bytes} used`;
  return undefined;
}
