/**
 * Publishes a request's messages to JetStream and resolves after every
 * PubAck. Messages of one partition go out in order on one connection, so
 * JetStream persists them in line order. A failure is not retried here:
 * a retry could land after a later message of the same partition and break
 * the overwrite order; the client gets 503 and re-sends (safe, events.md §2.2).
 *
 * A 503 must mean "not stored" (docs/ingest.md "When ingest answers 503"):
 * nothing is published while the connection is down (nats.js would send it
 * on reconnection, after the 503), and every message carries its publish
 * deadline so that the writer skips one JetStream stored after it.
 */
import type { JetStreamClient, PubAck } from 'nats';
import { headers as natsHeaders } from 'nats';
import { apiError } from '../../shared/errors/error-catalogue.js';
import {
  HEADER_KIND,
  HEADER_VERSION,
  KIND_EVENTS,
  partitionSubject,
  WIRE_VERSION,
} from '../../shared/events/wire-format.js';
import { isTransientStoreError, StoreUnavailableError } from '../../shared/stores/store-errors.js';
import type { PublishObserver } from '../events/ingest-metrics.js';
import { PublishWindow } from './publish-window.js';

export interface OutgoingMessage {
  partition: number;
  /** Bytes of the payload. */
  size: number;
  /** The payload, read when its turn in the publish window comes (it may be on disk: record-sink.ts). */
  payload(): Uint8Array | Promise<Uint8Array>;
  /** Told when JetStream acknowledged the message (nothing reads its payload any more). */
  acknowledged?(): void;
  /** The JetStream message id: JetStream drops a message whose id it stored within its de-duplication window. */
  id: string;
}

export interface EventPublisherOptions {
  prefix: string;
  timeoutMs: number;
  /** Told of every failed publish (the events stream may be gone: event-streams.ts checks and creates it again). */
  onFailure?: (error: unknown) => void;
  /** Room in the events stream's size limit, taken before anything is published (event-streams.ts). */
  room?: { reserve(bytes: number): (published: boolean) => void };
  /** Told of each request's publish: its duration and how JetStream answered each message. */
  observer?: PublishObserver;
  /** Bytes the process has out awaiting PubAcks, all requests together (unbounded when absent). */
  window?: PublishWindow;
}

/** JetStream's refusals of a full stream or server (10077 and 10023 measured on nats-server 2.9; the others by their text). */
const FULL_ERR_CODES = new Set([10077, 10023]);
const FULL_DESCRIPTION = /^(maximum (bytes|messages) exceeded|insufficient (storage )?resources)/;
const FULL_RETRY_AFTER_S = '5';
/** What JetStream stores per message besides its payload (subject, headers, record overhead), counted generously. */
const STORED_OVERHEAD_BYTES = 512;

/** The JetStream side of a NATS connection, and whether the connection is up now. */
export interface PublishConnection {
  readonly connected: boolean;
  jetstream(): JetStreamClient;
}

export class EventPublisher {
  private readonly window: PublishWindow;

  constructor(
    private readonly nats: () => PublishConnection,
    private readonly options: EventPublisherOptions,
  ) {
    this.window = options.window ?? new PublishWindow(Number.POSITIVE_INFINITY);
  }

  /** Publishes every message; resolves once JetStream has each (a message it already had counts: a re-send). */
  async publishAll(messages: OutgoingMessage[]): Promise<void> {
    const nats = this.nats();
    if (!nats.connected) {
      this.options.observer?.published(undefined, { acked: 0, duplicates: 0, failed: messages.length });
      throw this.failed(new StoreUnavailableError('nats', 'NATS is disconnected'));
    }
    const release = this.options.room?.reserve(messages.reduce((sum, m) => sum + m.size + STORED_OVERHEAD_BYTES, 0));
    try {
      await this.publishReserved(nats, messages);
      release?.(true);
    } catch (error) {
      release?.(false);
      throw error;
    }
  }

  private async publishReserved(nats: PublishConnection, messages: OutgoingMessage[]): Promise<void> {
    const started = process.hrtime.bigint();
    const js = nats.jetstream();
    const h = natsHeaders();
    h.set(HEADER_KIND, KIND_EVENTS);
    h.set(HEADER_VERSION, WIRE_VERSION);
    const subject = (partition: number) => partitionSubject(this.options.prefix, partition);
    // In order, each when the window has room; after a failure nothing more goes out (the request is answered 503).
    const acks: Array<Promise<PubAck>> = [];
    let failed = false;
    for (const message of messages) {
      const release = await this.window.acquire(message.size);
      if (failed) {
        release();
        break;
      }
      let ack: Promise<PubAck>;
      try {
        ack = js.publish(subject(message.partition), await message.payload(), {
          msgID: message.id,
          timeout: this.options.timeoutMs,
          headers: h,
        });
      } catch (error) {
        ack = Promise.reject(error);
      }
      ack.then(
        () => {
          message.acknowledged?.();
          release();
        },
        () => {
          failed = true;
          release();
        },
      );
      acks.push(ack);
    }
    const results = await Promise.allSettled(acks);
    if (this.options.observer) {
      const outcome = { acked: 0, duplicates: 0, failed: messages.length - acks.length };
      for (const r of results) {
        if (r.status === 'rejected') outcome.failed++;
        else if (r.value.duplicate) outcome.duplicates++;
        else outcome.acked++;
      }
      this.options.observer.published(Number(process.hrtime.bigint() - started) / 1e9, outcome);
    }
    const refused = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (refused) throw this.failed(refused.reason);
  }

  /** 503 for what a retry can fix (with Retry-After when the stream is full); anything else is a fault of ours, answered 500 by the front. */
  private failed(error: unknown): unknown {
    this.options.onFailure?.(error);
    const refusal = (error as { api_error?: { err_code?: number; description?: string } }).api_error;
    if (refusal && (FULL_ERR_CODES.has(refusal.err_code ?? 0) || FULL_DESCRIPTION.test(refusal.description ?? ''))) {
      return apiError('event_log_full', refusal.description, undefined, {
        cause: error,
        headers: { 'retry-after': FULL_RETRY_AFTER_S },
      });
    }
    return isTransientStoreError(error)
      ? apiError('events_not_persisted', undefined, undefined, { cause: error })
      : error;
  }
}
