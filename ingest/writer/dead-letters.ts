/**
 * Messages that can never be stored go to the dead-letter stream, with the
 * original payload and headers naming why and where they came from, so that
 * an operator can inspect, fix and re-publish them. The partition then moves
 * on: one bad message must not stop the events behind it.
 */
import { headers as natsHeaders, type JetStreamClient } from 'nats';
import { deadLetterSubject } from '../../shared/events/wire-format.js';
import type { Delivery } from './jetstream-delivery.js';

export const DEAD_LETTER_HEADERS = {
  reason: 'Clearml-Dead-Reason',
  streamSeq: 'Clearml-Stream-Seq',
  partition: 'Clearml-Partition',
} as const;

export class DeadLetters {
  constructor(
    private readonly js: JetStreamClient,
    private readonly streamPrefix: string,
    private readonly streamName: string,
  ) {}

  async publish(delivery: Delivery, partition: number, reason: string): Promise<void> {
    const h = natsHeaders();
    for (const [name, values] of delivery.msg.headers ?? []) for (const value of values) h.append(name, value);
    // Header values are single lines.
    h.set(DEAD_LETTER_HEADERS.reason, reason.replace(/[\r\n]+/g, ' ').slice(0, 1000));
    h.set(DEAD_LETTER_HEADERS.streamSeq, String(delivery.streamSeq));
    h.set(DEAD_LETTER_HEADERS.partition, String(partition));
    // The message id makes a redelivered poison message land once.
    await this.js.publish(deadLetterSubject(this.streamPrefix, partition), delivery.msg.data, {
      headers: h,
      msgID: `${this.streamName}-${delivery.streamSeq}`,
    });
  }
}
