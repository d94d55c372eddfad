/**
 * Publishes a request's messages to JetStream and resolves after every
 * PubAck. Messages of one partition go out in order on one connection, so
 * JetStream persists them in line order. A failure is not retried here:
 * a retry could land after a later message of the same partition and break
 * the overwrite order; the client gets 503 and re-sends (safe, events.md §2.2).
 */
import type { JetStreamClient } from 'nats';
import { headers as natsHeaders } from 'nats';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { HEADER_KIND, HEADER_VERSION, partitionSubject, WIRE_VERSION } from '../../shared/events/wire-format.js';

export interface OutgoingMessage {
  partition: number;
  payload: Uint8Array;
}

export interface EventPublisherOptions {
  prefix: string;
  timeoutMs: number;
}

const encoder = new TextEncoder();

export class EventPublisher {
  constructor(
    private readonly js: () => JetStreamClient,
    private readonly options: EventPublisherOptions,
  ) {}

  static encode(payload: string): Uint8Array {
    return encoder.encode(payload);
  }

  /** Publishes every message (msg ids `<requestId>.<n>` let JetStream drop duplicates of a re-sent message). */
  async publishAll(requestId: string, messages: OutgoingMessage[]): Promise<void> {
    const js = this.js();
    const h = natsHeaders();
    h.set(HEADER_KIND, 'ev');
    h.set(HEADER_VERSION, WIRE_VERSION);
    const acks = messages.map((message, n) =>
      js.publish(partitionSubject(this.options.prefix, message.partition), message.payload, {
        msgID: `${requestId}.${n}`,
        timeout: this.options.timeoutMs,
        headers: h,
      }),
    );
    const results = await Promise.allSettled(acks);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw apiError('events_not_persisted', undefined, undefined, { cause: failed.reason });
  }
}
