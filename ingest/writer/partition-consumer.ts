/**
 * The durable pull consumer of one partition, prepared by the writer that
 * just took the partition.
 *
 * A previous owner that crashed (or lost its lease) leaves messages
 * delivered and unacknowledged. JetStream would redeliver them only after
 * their ack deadline, by which time later messages would have been stored,
 * and replaying the old ones would undo those overwrites. So the new owner
 * recreates the consumer: on a work-queue stream every unacknowledged
 * message is still there, and a fresh consumer delivers them first, in
 * stream order. Its delivery counts restart at 1, so the caller is told up
 * to which stream seq messages may have been stored before (when the
 * consumer is missing altogether: every message waiting on the partition).
 */
import { AckPolicy, DeliverPolicy, nanos, type ConsumerConfig, type JetStreamManager } from 'nats';
import { isStreamNotFound } from '../../shared/events/event-streams.js';
import { consumerName, partitionSubject, streamName } from '../../shared/events/wire-format.js';
import type { WriterSettings } from './writer-settings.js';

export interface PreparedConsumer {
  stream: string;
  consumer: string;
  /** Messages at or below this stream seq may have been (partly) stored by a previous owner. */
  seenUpTo: number;
  /** Consumer sequence of the next delivery. */
  nextConsumerSeq: number;
}

/**
 * How long a writer holds a consumer's creation while a replica of the stream is offline or
 * behind. nats-server 2.9 leaves a consumer recreated while a node was down "stranded with an
 * old RAFT group" on that node when it comes back (nats-io/nats-server#6507, merged upstream in
 * February 2025, long after the Debian package's 2.9.10): the consumer stays a replica short
 * for good (docs/faults.md, "Known limit"). A
 * node restarted by its supervisor is back within seconds; one down for longer costs only this
 * wait, then the consumer is made anyway.
 */
export const CONSUMER_CREATION_HOLD_MS = 30_000;

/** A replica of the stream is offline or behind: retried (a plain Error is transient, store-errors.ts). */
export class StreamNotAtFullStrength extends Error {
  override name = 'StreamNotAtFullStrength';
}

/**
 * `holdUntil`: epoch ms until which a consumer is not created or recreated while a replica of the
 * stream is offline or not current (CONSUMER_CREATION_HOLD_MS); the caller retries.
 */
export async function preparePartitionConsumer(
  jsm: JetStreamManager,
  settings: WriterSettings,
  partition: number,
  holdUntil = 0,
): Promise<PreparedConsumer> {
  const stream = streamName(settings.streamPrefix);
  const consumer = consumerName(settings.streamPrefix, partition);
  const config: Partial<ConsumerConfig> = {
    durable_name: consumer,
    filter_subject: partitionSubject(settings.streamPrefix, partition),
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(settings.ackWaitMs),
    max_deliver: -1,
    max_ack_pending: settings.maxAckPending,
    deliver_policy: DeliverPolicy.All,
  };
  let info;
  try {
    info = await jsm.consumers.info(stream, consumer);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    // No consumer: the first start, or it was deleted (by an operator, or under a writer that
    // had stored messages it could not acknowledge). Nothing tells the two apart, so every
    // message already waiting may have been stored: its log lines are looked up before append.
    await holdWhileStreamDegraded(jsm, stream, holdUntil);
    const seenUpTo = await lastSeqOf(jsm, stream, config.filter_subject!);
    await jsm.consumers.add(stream, config);
    return { stream, consumer, seenUpTo, nextConsumerSeq: 1 };
  }
  if (info.num_ack_pending > 0 || info.num_redelivered > 0) {
    await holdWhileStreamDegraded(jsm, stream, holdUntil);
    const seenUpTo = info.delivered.stream_seq;
    await jsm.consumers.delete(stream, consumer);
    await jsm.consumers.add(stream, config);
    return { stream, consumer, seenUpTo, nextConsumerSeq: 1 };
  }
  if (info.config.ack_wait !== config.ack_wait || info.config.max_ack_pending !== config.max_ack_pending) {
    await jsm.consumers.update(stream, consumer, {
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
    });
  }
  return { stream, consumer, seenUpTo: 0, nextConsumerSeq: info.delivered.consumer_seq + 1 };
}

async function holdWhileStreamDegraded(jsm: JetStreamManager, stream: string, holdUntil: number): Promise<void> {
  if (Date.now() >= holdUntil) return;
  const replicas = (await jsm.streams.info(stream)).cluster?.replicas ?? [];
  const behind = replicas.filter((r) => r.offline || !r.current).map((r) => r.name);
  if (behind.length > 0)
    throw new StreamNotAtFullStrength(
      `stream ${stream}: replica ${behind.join(', ')} offline or behind; consumer creation held for up to ${Math.ceil((holdUntil - Date.now()) / 1000)} s more`,
    );
}

/** The stream seq of the last message on the subject, 0 when there is none. */
async function lastSeqOf(jsm: JetStreamManager, stream: string, subject: string): Promise<number> {
  try {
    return (await jsm.streams.getMessage(stream, { last_by_subj: subject })).seq;
  } catch (error) {
    if (/no message found/i.test((error as Error).message ?? '')) return 0;
    throw error;
  }
}

/**
 * True when JetStream says the consumer (or its stream) does not exist: asked of the
 * JetStream API, which answers from its assignments, not from the consumer's leader, so a
 * leader election or a node's loss does not look like a deletion. Any other answer (a
 * timeout, no responders while JetStream restarts) is not proof: false.
 */
export async function consumerMissing(jsm: JetStreamManager, stream: string, consumer: string): Promise<boolean> {
  try {
    await jsm.consumers.info(stream, consumer);
    return false;
  } catch (error) {
    return isNotFound(error) || isStreamNotFound(error);
  }
}

function isNotFound(error: unknown): boolean {
  const e = error as { api_error?: { err_code?: number }; message?: string };
  return e.api_error?.err_code === 10014 || /consumer not found/i.test(e.message ?? '');
}
