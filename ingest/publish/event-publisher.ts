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
import type { JetStreamClient } from 'nats';
import { headers as natsHeaders } from 'nats';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { HEADER_PUBLISH_DEADLINE } from '../../shared/events/publish-deadline.js';
import { HEADER_KIND, HEADER_VERSION, partitionSubject, WIRE_VERSION } from '../../shared/events/wire-format.js';
import { isTransientStoreError, StoreUnavailableError } from '../../shared/stores/store-errors.js';

export interface OutgoingMessage {
  partition: number;
  payload: Uint8Array;
}

export interface EventPublisherOptions {
  prefix: string;
  timeoutMs: number;
  /** Told of every failed publish (the events stream may be gone: event-streams.ts checks and creates it again). */
  onFailure?: (error: unknown) => void;
}

/** The JetStream side of a NATS connection, and whether the connection is up now. */
export interface PublishConnection {
  readonly connected: boolean;
  jetstream(): JetStreamClient;
}

const encoder = new TextEncoder();

export class EventPublisher {
  constructor(
    private readonly nats: () => PublishConnection,
    private readonly options: EventPublisherOptions,
  ) {}

  static encode(payload: string): Uint8Array {
    return encoder.encode(payload);
  }

  /** Publishes every message (msg ids `<requestId>.<n>` let JetStream drop duplicates of a re-sent message). */
  async publishAll(requestId: string, messages: OutgoingMessage[]): Promise<void> {
    const nats = this.nats();
    if (!nats.connected) throw this.failed(new StoreUnavailableError('nats', 'NATS is disconnected'));
    const js = nats.jetstream();
    const h = natsHeaders();
    h.set(HEADER_KIND, 'ev');
    h.set(HEADER_VERSION, WIRE_VERSION);
    h.set(HEADER_PUBLISH_DEADLINE, String(Date.now() + this.options.timeoutMs));
    const acks = messages.map((message, n) =>
      js.publish(partitionSubject(this.options.prefix, message.partition), message.payload, {
        msgID: `${requestId}.${n}`,
        timeout: this.options.timeoutMs,
        headers: h,
      }),
    );
    const results = await Promise.allSettled(acks);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw this.failed(failed.reason);
  }

  /** 503 for what a retry can fix; anything else is a fault of ours, answered 500 by the front. */
  private failed(error: unknown): unknown {
    this.options.onFailure?.(error);
    return isTransientStoreError(error) ? apiError('events_not_persisted', undefined, undefined, { cause: error }) : error;
  }
}
