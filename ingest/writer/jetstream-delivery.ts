/**
 * A message delivered by a pull request on the partition's own inbox. The
 * writer pulls with the raw JetStream protocol (see partition-puller.ts), so
 * it reads delivery facts from the ack subject itself and acknowledges by
 * answering on it.
 */
import type { Msg, NatsConnection } from 'nats';
import type { RetryPolicy } from './store-retry.js';

const ACK = new TextEncoder().encode('+ACK');
const NAK = new TextEncoder().encode('-NAK');
const WORKING = new TextEncoder().encode('+WPI');

export class Delivery {
  /**
   * True when an earlier delivery may have been stored already: a JetStream
   * redelivery, or a message at or below what a previous owner of the
   * partition had received (its consumer was recreated, which resets the
   * delivery count).
   */
  possiblyRedelivered: boolean;

  constructor(
    readonly msg: Msg,
    readonly streamSeq: number,
    /** The consumer's delivery sequence: +1 per delivery, so a gap means a delivery never arrived. */
    readonly consumerSeq: number,
    readonly deliveryCount: number,
  ) {
    this.possiblyRedelivered = deliveryCount > 1;
  }

  /** Keeps the ack deadline from passing while the batch waits for a store. */
  working(): void {
    this.msg.respond(WORKING);
  }

  /** Hands the message back for immediate redelivery (shutdown only: a delayed nak would let later messages overtake it). */
  nak(): void {
    this.msg.respond(NAK);
  }

  header(name: string): string | undefined {
    return this.msg.headers?.get(name) || undefined;
  }
}

/** Reads a delivery from its ack subject; undefined for status messages (no reply subject). */
export function toDelivery(msg: Msg): Delivery | undefined {
  const reply = msg.reply;
  if (!reply || !reply.startsWith('$JS.ACK.')) return undefined;
  const tokens = reply.split('.');
  // $JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>, or with
  // <domain>.<account hash> after ACK and a trailing token on newer servers.
  const at = tokens.length === 9 ? 4 : 6;
  const deliveryCount = Number(tokens[at]);
  const streamSeq = Number(tokens[at + 1]);
  const consumerSeq = Number(tokens[at + 2]);
  if (!Number.isSafeInteger(streamSeq) || !Number.isSafeInteger(consumerSeq) || !Number.isSafeInteger(deliveryCount)) return undefined;
  return new Delivery(msg, streamSeq, consumerSeq, deliveryCount);
}

/**
 * Tries of one acknowledgement before the partition is taken again from a
 * fresh consumer (about a minute): retrying acks forever would stall the
 * partition if their consumer is gone.
 */
const ACK_ATTEMPTS = 15;
/**
 * "No responders" for this long: NATS is up and the consumer is gone, start
 * over now. Shorter silences are a consumer leader election on a NATS
 * cluster (its leader's node was lost; 4 to 9 s in nats-server 2.9):
 * starting over then would recreate the consumer while a node is down, and
 * nats-server 2.9 does not always bring a consumer recreated so back to
 * full strength on that node (docs/faults.md, "The cluster's scenarios").
 */
export const NO_CONSUMER_MS = 15_000;

/**
 * The retry policy of an acknowledgement: give up after ACK_ATTEMPTS, or at
 * once when no consumer has answered for NO_CONSUMER_MS: the partition is
 * then taken again from a fresh consumer, which replays what was not
 * acknowledged.
 */
export function ackPolicy(clock: () => number = Date.now): RetryPolicy {
  let silentSince: number | undefined;
  return {
    maxAttempts: ACK_ATTEMPTS,
    fatal: (error) => {
      if ((error as { code?: string }).code !== '503') {
        silentSince = undefined;
        return false;
      }
      silentSince ??= clock();
      return clock() - silentSince >= NO_CONSUMER_MS;
    },
  };
}

/**
 * Acknowledges in order and waits for the server to confirm the last one:
 * acks on one connection are processed in order, so the confirmation covers
 * all. A lost ack would bring an old message back after later ones were
 * stored, and replaying it would undo their overwrites.
 */
export async function acknowledge(nc: NatsConnection, deliveries: readonly Delivery[], timeoutMs = 5_000): Promise<void> {
  if (deliveries.length === 0) return;
  for (let i = 0; i < deliveries.length - 1; i++) deliveries[i]!.msg.respond(ACK);
  const last = deliveries[deliveries.length - 1]!;
  await nc.request(last.msg.reply!, ACK, { timeout: timeoutMs });
}
