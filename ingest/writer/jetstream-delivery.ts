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
  if (!Number.isSafeInteger(streamSeq) || !Number.isSafeInteger(consumerSeq) || !Number.isSafeInteger(deliveryCount))
    return undefined;
  return new Delivery(msg, streamSeq, consumerSeq, deliveryCount);
}

/**
 * Tries of one acknowledgement before the partition is taken again from a
 * fresh consumer (about a minute): retrying acks forever would stall the
 * partition if their consumer is gone.
 */
const ACK_ATTEMPTS = 15;
/** "No responders" this many times in a row: NATS is up and the consumer is gone, start over now. */
const ACK_NO_RESPONDERS = 3;

/**
 * How long "no responders" must last before a consumer counts as gone. On
 * a NATS cluster (replicated streams), shorter silences are a consumer
 * leader election (its leader's node was lost; 4 to 9 s in nats-server
 * 2.9): starting over then would recreate the consumer while a node is
 * down, for nothing, and nats-server 2.9 did not always bring a consumer
 * recreated shortly before a node's loss back to full strength on that node
 * (docs/faults.md, "The cluster's scenarios"). A single server elects
 * nothing: there, no responders means JetStream restarting or the consumer
 * gone, and starting over at once is what replays lost acks soonest.
 */
export function noConsumerAfterMs(streamReplicas: number): number {
  return streamReplicas > 1 ? 15_000 : 0;
}

/**
 * The retry policy of an acknowledgement: give up after ACK_ATTEMPTS, or at
 * once when no consumer answered ACK_NO_RESPONDERS times in a row over at
 * least `silenceMs` (noConsumerAfterMs): the partition is then taken again
 * from a fresh consumer, which replays what was not acknowledged.
 */
export function ackPolicy(silenceMs: number, clock: () => number = Date.now): RetryPolicy {
  let silentSince = 0;
  let noResponders = 0;
  return {
    maxAttempts: ACK_ATTEMPTS,
    fatal: (error) => {
      if ((error as { code?: string }).code !== '503') {
        noResponders = 0;
        return false;
      }
      if (noResponders++ === 0) silentSince = clock();
      return noResponders >= ACK_NO_RESPONDERS && clock() - silentSince >= silenceMs;
    },
  };
}

/**
 * Acknowledges in order and waits for the server to confirm the last one:
 * acks on one connection are processed in order, so the confirmation covers
 * all. A lost ack would bring an old message back after later ones were
 * stored, and replaying it would undo their overwrites.
 */
export async function acknowledge(
  nc: NatsConnection,
  deliveries: readonly Delivery[],
  timeoutMs = 5_000,
): Promise<void> {
  if (deliveries.length === 0) return;
  for (let i = 0; i < deliveries.length - 1; i++) deliveries[i]!.msg.respond(ACK);
  const last = deliveries[deliveries.length - 1]!;
  await nc.request(last.msg.reply!, ACK, { timeout: timeoutMs });
}
