/**
 * The JetStream streams of the events pipeline, created (or checked) by
 * every ingest and writer process at start: idempotent, so any process may
 * come first.
 *
 * - `<prefix>_events`: subjects `<prefix>.ev.<partition>`, file storage,
 *   work-queue retention (a message is gone once a writer acknowledged it),
 *   a de-duplication window for client retries (Nats-Msg-Id), the size and
 *   age limits and the replicas of the configuration. A stream that exists
 *   with other limits gets the configured ones (the operator changed them).
 * - `<prefix>_dead`: dead letters, `<prefix>.dead.<partition>`, kept 30 days.
 *
 * A stream deleted while the service runs is created again by the
 * EventStreamKeeper of an ingest or writer process, as soon as its /ready
 * check or a failed publish finds it missing (docs/ingest.md).
 */
import {
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
  type StreamInfo,
} from 'nats';
import type { Config } from '../config/config.js';
import { apiError } from '../errors/error-catalogue.js';
import type { Logger } from '../observability/logger.js';
import { deadLetterStreamName, streamName } from './wire-format.js';

const MS_NS = 1e6;
const DAY_NS = 24 * 60 * 60 * 1e9;
/** A failed publish triggers at most one check per this long. */
const SUSPECT_INTERVAL_MS = 1_000;

/** What the configuration says of the streams (docs/configuration.md, NATS_*). */
export interface EventStreamSettings {
  readonly prefix: string;
  readonly replicas: number;
  /** How long JetStream remembers message ids: a re-sent request within it stores nothing twice. */
  readonly duplicateWindowMs: number;
  /** 0: no limit but the server's storage. */
  readonly maxBytes: number;
  /** 0: events wait for the writers however long; else older unwritten events are dropped. */
  readonly maxAgeMs: number;
}

export function eventStreamSettings(config: Readonly<Config>): EventStreamSettings {
  return {
    prefix: config.NATS_STREAM_PREFIX,
    replicas: config.NATS_STREAM_REPLICAS,
    duplicateWindowMs: config.NATS_DUPLICATE_WINDOW_MS,
    maxBytes: config.NATS_STREAM_MAX_BYTES,
    maxAgeMs: config.NATS_STREAM_MAX_AGE_MS,
  };
}

type Limits = Pick<StreamConfig, 'duplicate_window' | 'max_bytes' | 'max_age' | 'num_replicas'>;

export async function ensureEventStreams(
  jsm: JetStreamManager,
  settings: EventStreamSettings,
  logger?: Logger,
): Promise<void> {
  const { prefix } = settings;
  await ensureStream(
    jsm,
    {
      name: streamName(prefix),
      subjects: [`${prefix}.ev.*`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
    },
    {
      duplicate_window: settings.duplicateWindowMs * MS_NS,
      max_bytes: settings.maxBytes > 0 ? settings.maxBytes : -1,
      max_age: settings.maxAgeMs * MS_NS,
      num_replicas: settings.replicas,
    },
    logger,
  );
  await ensureStream(
    jsm,
    {
      name: deadLetterStreamName(prefix),
      subjects: [`${prefix}.dead.*`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    },
    { max_age: 30 * DAY_NS, num_replicas: settings.replicas },
    logger,
  );
}

async function ensureStream(
  jsm: JetStreamManager,
  config: Partial<StreamConfig> & { name: string },
  limits: Partial<Limits>,
  logger?: Logger,
): Promise<void> {
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(config.name);
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    try {
      await jsm.streams.add({ ...config, ...limits });
    } catch (addError) {
      // Another process created it between our check and our add.
      if (!/already in use|exists/i.test((addError as Error).message)) throw addError;
    }
    return;
  }
  const changed = (Object.keys(limits) as Array<keyof Limits>).filter(
    (key) => limits[key] !== undefined && info.config[key] !== limits[key],
  );
  if (changed.length === 0) return;
  await jsm.streams.update(config.name, { ...info.config, ...limits });
  logger?.info(
    {
      stream: config.name,
      changed: Object.fromEntries(changed.map((key) => [key, { from: info.config[key], to: limits[key] }])),
    },
    'stream limits changed to the configured ones',
  );
}

export function isStreamNotFound(error: unknown): boolean {
  const e = error as { api_error?: { err_code?: number }; message?: unknown };
  return e?.api_error?.err_code === 10059 || /stream not found/i.test(String(e?.message ?? ''));
}

export interface EventStreamKeeperOptions {
  settings: EventStreamSettings;
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

/** The events stream's fill as last read, with what this process published since. */
interface Fill {
  bytes: number;
  maxBytes: number;
  readAt: number;
  publishedSince: number;
}

/** How old the fill may be before a request starts reading it again. */
const FILL_REFRESH_MS = 1_000;
/** What a client that found the event log full waits before its retry. */
const FULL_RETRY_AFTER_S = '5';

/** Keeps the event streams in existence, says on /ready whether they can take events, and refuses what would not fit. */
export class EventStreamKeeper {
  private creating?: Promise<void>;
  private lastSuspect = 0;
  private fill?: Fill;
  private refreshing?: Promise<void>;
  /** Bytes of requests that passed reserve() and are being published. */
  private reserved = 0;

  constructor(private readonly options: EventStreamKeeperOptions) {}

  /** Creates the streams that are missing, or sets their limits to the configured ones (start-up). */
  async ensure(): Promise<void> {
    await ensureEventStreams(await this.options.jsm(), this.options.settings, this.options.logger);
  }

  /**
   * Room for a request of `bytes` in the events stream's size limit, or
   * 503 `event_log_full` with Retry-After before anything of it is
   * published, so that a full stream stores nothing partial (concurrent
   * requests are counted; several ingest processes each count their own,
   * and JetStream's own refusal stays the last word). Call the returned
   * function once the request is published, or failed.
   */
  reserve(bytes: number): (published: boolean) => void {
    if (this.options.settings.maxBytes <= 0) return () => undefined;
    const fill = this.fill;
    if (fill === undefined || Date.now() - fill.readAt > FILL_REFRESH_MS) this.refreshFill();
    if (fill !== undefined && fill.bytes + fill.publishedSince + this.reserved + bytes > fill.maxBytes) {
      throw apiError(
        'event_log_full',
        `${fill.bytes + fill.publishedSince} of ${fill.maxBytes} bytes used`,
        undefined,
        { headers: { 'retry-after': FULL_RETRY_AFTER_S } },
      );
    }
    this.reserved += bytes;
    return (published) => {
      this.reserved -= bytes;
      if (published && this.fill) this.fill.publishedSince += bytes;
    };
  }

  private refreshFill(): void {
    this.refreshing ??= this.options
      .jsm()
      .then((jsm) => jsm.streams.info(streamName(this.options.settings.prefix)))
      .then((info) => this.observe(info))
      .catch(() => undefined) // a failed read keeps the last fill; publishes report the stream's own state
      .finally(() => (this.refreshing = undefined));
  }

  /** A reading of the events stream made elsewhere (the writer lag sampler's): the fill is fresh again without a read of its own. */
  observe(info: StreamInfo): void {
    this.fill = { bytes: info.state.bytes, maxBytes: info.config.max_bytes, readAt: Date.now(), publishedSince: 0 };
  }

  /** Readiness: rejects with the reason the streams cannot take events now; a missing stream is created again meanwhile. */
  async check(): Promise<void> {
    const jsm = await this.options.jsm();
    const { prefix } = this.options.settings;
    const [events] = await Promise.all([
      this.info(jsm, streamName(prefix)),
      this.options.deadLetters ? this.info(jsm, deadLetterStreamName(prefix)) : undefined,
    ]);
    this.observe(events);
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
      .then(() =>
        this.options.logger.warn(
          { prefix: this.options.settings.prefix },
          'event stream was missing: created it again',
        ),
      )
      .catch((error: unknown) =>
        this.options.logger.warn({ err: error }, 'could not create the missing event stream; next check tries again'),
      )
      .finally(() => (this.creating = undefined));
  }
}

/** Why a stream with DiscardPolicy.New would refuse the next message, if it would. */
function fullReason(info: StreamInfo, roomBytes: number): string | undefined {
  const { config, state } = info;
  if (config.max_msgs > 0 && state.messages >= config.max_msgs) return `max_msgs ${config.max_msgs} reached`;
  if (config.max_bytes > 0 && state.bytes + roomBytes > config.max_bytes)
    return `max_bytes ${config.max_bytes}: ${state.bytes} used`;
  return undefined;
}
