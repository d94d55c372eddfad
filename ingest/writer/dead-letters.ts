/**
 * What can never be stored goes to the dead-letter stream, one message per
 * refused record (or per undecodable message), so that an operator can
 * inspect it, fix the cause and replay it (dead-letter-admin.ts,
 * docs/operations.md). The partition then moves on: one bad record must not
 * stop the events behind it, nor cost its siblings.
 *
 * A dead letter's payload is the record in the wire format (a one-record
 * message), its headers are the original message's plus where it came from
 * and why it was refused.
 */
import { headers as natsHeaders, type JetStreamClient, type JetStreamManager } from 'nats';
import { ensureEventStreams, type EventStreamSettings } from '../../shared/events/event-streams.js';
import { deadLetterSubject, streamName } from '../../shared/events/wire-format.js';
import { payloadOrigin } from './dead-letter-record.js';
import type { Delivery } from './jetstream-delivery.js';
import { recordFrame } from './record-scanner.js';
import type { DeadLetterReason } from './store-errors.js';

export const DEAD_LETTER_HEADERS = {
  /** one of DEAD_LETTER_REASONS */
  reason: 'Clearml-Dead-Reason',
  /** the store's or the writer's message, one line */
  detail: 'Clearml-Dead-Detail',
  streamSeq: 'Clearml-Stream-Seq',
  partition: 'Clearml-Partition',
  /** absent when the whole message is dead-lettered */
  recordIndex: 'Clearml-Record-Index',
  /** absent when no record of the payload names one */
  company: 'Clearml-Company',
  /** epoch ms */
  deadAt: 'Clearml-Dead-At',
} as const;

const HEADER_VALUE_MAX = 1000;
const headerValue = (text: string) => text.replace(/[\r\n]+/g, ' ').slice(0, HEADER_VALUE_MAX);

export interface DeadLetter {
  delivery: Delivery;
  partition: number;
  /** the refused record's index in the message; absent: the whole message */
  index?: number;
  reason: DeadLetterReason;
  detail: string;
  /** the framed record to carry instead of the original one */
  record?: string;
}

export class DeadLetters {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly streams: EventStreamSettings,
  ) {}

  /** Publishes the letter; answers the company it names, if any. */
  async publish(letter: DeadLetter): Promise<string | undefined> {
    const { delivery, index } = letter;
    const data = delivery.msg.data;
    const payload: string | Uint8Array =
      letter.record ??
      (index === undefined ? data : recordFrame(Buffer.from(data.buffer, data.byteOffset, data.byteLength), index));
    const company = payloadOrigin(
      typeof payload === 'string'
        ? payload
        : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8'),
    ).company;
    const h = natsHeaders();
    for (const [name, values] of delivery.msg.headers ?? []) for (const value of values) h.append(name, value);
    h.set(DEAD_LETTER_HEADERS.reason, letter.reason);
    h.set(DEAD_LETTER_HEADERS.detail, headerValue(letter.detail));
    h.set(DEAD_LETTER_HEADERS.streamSeq, String(delivery.streamSeq));
    h.set(DEAD_LETTER_HEADERS.partition, String(letter.partition));
    if (index !== undefined) h.set(DEAD_LETTER_HEADERS.recordIndex, String(index));
    if (company !== undefined) h.set(DEAD_LETTER_HEADERS.company, headerValue(company));
    h.set(DEAD_LETTER_HEADERS.deadAt, String(Date.now()));
    try {
      // The message id makes a redelivered poison record land once (within the stream's duplicate window).
      await this.js.publish(deadLetterSubject(this.streams.prefix, letter.partition), payload, {
        headers: h,
        msgID:
          index === undefined
            ? `${streamName(this.streams.prefix)}-${delivery.streamSeq}`
            : `${streamName(this.streams.prefix)}-${delivery.streamSeq}-${index}`,
      });
    } catch (error) {
      // No stream listens on the subject (the dead-letter stream was deleted): create it for the retry.
      if ((error as { code?: string }).code === '503')
        await ensureEventStreams(this.jsm, this.streams).catch(() => undefined);
      throw error;
    }
    return company;
  }
}
