/**
 * Reading and replaying dead letters (docs/operations.md). A replay
 * publishes the dead letter's record, as the one-record message it is, to
 * its entity's partition of the events stream under the current partition
 * count, with the original wire headers: the writer then stores it like any
 * other message, or dead-letters it again (a new letter) if the cause is not
 * fixed. The replayed letter is then deleted from the dead-letter stream.
 */
import {
  headers as natsHeaders,
  type JetStreamManager,
  type MsgRequest,
  type NatsConnection,
  type StoredMsg,
} from 'nats';
import {
  deadLetterStreamName,
  HEADER_KIND,
  HEADER_REPLY,
  KIND_CONTROL,
  partitionOf,
  partitionSubject,
} from '../../shared/events/wire-format.js';
import { payloadOrigin } from './dead-letter-record.js';
import { DEAD_LETTER_HEADERS } from './dead-letters.js';

export interface DeadLetterView {
  /** sequence in the dead-letter stream: what show and replay take */
  seq: number;
  deadAt: Date;
  reason: string;
  detail: string;
  partition?: number;
  streamSeq?: number;
  recordIndex?: number;
  company?: string;
  headers: Record<string, string[]>;
  payload: string;
}

export interface ReplayResult {
  seq: number;
  partition: number;
  /** sequence of the re-published message in the events stream */
  streamSeq: number;
}

export interface DeadLetterSettings {
  streamPrefix: string;
  partitions: number;
}

const optionalNumber = (text: string | undefined) => (text === undefined || text === '' ? undefined : Number(text));

export class DeadLetterAdmin {
  private readonly stream: string;

  constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly settings: DeadLetterSettings,
  ) {
    this.stream = deadLetterStreamName(settings.streamPrefix);
  }

  /** The dead letters from the oldest, optionally of one reason only, at most `limit`. */
  async list(options: { reason?: string; limit?: number } = {}): Promise<DeadLetterView[]> {
    const out: DeadLetterView[] = [];
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    let seq = 1;
    while (out.length < limit) {
      // The first letter at or after seq: replayed letters leave gaps. (The server takes next_by_subj
      // on STREAM.MSG.GET; the client types it for direct gets only.)
      const next = { next_by_subj: `${this.settings.streamPrefix}.dead.*`, seq } as unknown as MsgRequest;
      const message = await this.jsm.streams.getMessage(this.stream, next).catch(notFoundAs(undefined));
      if (!message) break;
      const view = toView(message);
      if (options.reason === undefined || view.reason === options.reason) out.push(view);
      seq = message.seq + 1;
    }
    return out;
  }

  async get(seq: number): Promise<DeadLetterView | undefined> {
    const message = await this.jsm.streams.getMessage(this.stream, { seq }).catch(notFoundAs(undefined));
    return message && toView(message);
  }

  /** Re-publishes the letter into the events stream, then deletes it; undefined when there is no such letter. */
  async replay(seq: number): Promise<ReplayResult | undefined> {
    const letter = await this.get(seq);
    if (!letter) return undefined;
    const partition = this.partitionOf(letter);
    const h = natsHeaders();
    for (const [name, values] of Object.entries(letter.headers)) {
      // The wire headers only: where it failed is history, and the requester of a control message is gone.
      if (name.startsWith('Clearml-') || name.startsWith('Nats-') || name === HEADER_REPLY) continue;
      for (const value of values) h.append(name, value);
    }
    // The id makes a replay repeated within the stream's duplicate window land once.
    const ack = await this.nc
      .jetstream()
      .publish(partitionSubject(this.settings.streamPrefix, partition), letter.payload, {
        headers: h,
        msgID: `replay-${this.stream}-${seq}`,
      });
    await this.jsm.streams.deleteMessage(this.stream, seq, false).catch(notFoundAs(false));
    return { seq, partition, streamSeq: ack.seq };
  }

  /** The partition of the record's entity now; a letter naming none goes back to the partition it came from. */
  private partitionOf(letter: DeadLetterView): number {
    const origin =
      letter.headers[HEADER_KIND]?.[0] === KIND_CONTROL ? controlOrigin(letter.payload) : payloadOrigin(letter.payload);
    if (origin.namespace !== undefined && origin.entity !== undefined)
      return partitionOf(origin.namespace, origin.entity, this.settings.partitions);
    if (
      letter.partition !== undefined &&
      Number.isInteger(letter.partition) &&
      letter.partition >= 0 &&
      letter.partition < this.settings.partitions
    )
      return letter.partition;
    throw new Error(
      `dead letter ${letter.seq} names no entity and came from partition ${letter.partition}, which no longer exists`,
    );
  }
}

function toView(message: StoredMsg): DeadLetterView {
  const headers: Record<string, string[]> = {};
  for (const [name, values] of message.header ?? []) headers[name] = values;
  const header = (name: string) => message.header?.get(name) || undefined;
  const deadAt = optionalNumber(header(DEAD_LETTER_HEADERS.deadAt));
  return {
    seq: message.seq,
    deadAt: deadAt === undefined ? message.time : new Date(deadAt),
    reason: header(DEAD_LETTER_HEADERS.reason) ?? '',
    detail: header(DEAD_LETTER_HEADERS.detail) ?? '',
    partition: optionalNumber(header(DEAD_LETTER_HEADERS.partition)),
    streamSeq: optionalNumber(header(DEAD_LETTER_HEADERS.streamSeq)),
    recordIndex: optionalNumber(header(DEAD_LETTER_HEADERS.recordIndex)),
    company: header(DEAD_LETTER_HEADERS.company),
    headers,
    payload: message.string(),
  };
}

function controlOrigin(payload: string): { namespace?: 't' | 'm'; entity?: string } {
  try {
    const record = JSON.parse(payload) as { op?: unknown; n?: unknown; e?: unknown };
    if (typeof record.e !== 'string') return {};
    return { namespace: record.op === 'delete_entity' && record.n === 'm' ? 'm' : 't', entity: record.e };
  } catch {
    return {};
  }
}

/** A "no message found" answer (or no stream at all) as a value; any other error passes. */
function notFoundAs<T>(value: T): (error: unknown) => T {
  return (error) => {
    const e = error as { code?: string | number; api_error?: { err_code?: number }; message?: string };
    if (
      e.api_error?.err_code === 10037 ||
      e.api_error?.err_code === 10059 ||
      /no message found|stream not found/i.test(e.message ?? '')
    )
      return value;
    throw error;
  };
}
