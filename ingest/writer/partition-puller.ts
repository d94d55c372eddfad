/**
 * Pulls one partition's messages into a local queue, with the raw JetStream
 * pull protocol on an inbox that lives as long as the partition is owned.
 *
 * Why not nats.js' consume()/fetch(): they abandon a request's inbox when
 * their client-side timer fires, and a message the server delivers at that
 * moment is then stuck until its ack deadline and redelivered after later
 * messages, which breaks the overwrite order. Here nothing is abandoned:
 * requests expire on the server only, every delivery lands in the queue in
 * stream order, and the writer holds (and keeps alive) all it was given.
 */
import type { Msg, NatsConnection, Subscription } from 'nats';
import { createInbox } from 'nats';
import type { Logger } from '../../shared/observability/logger.js';
import { toDelivery, type Delivery } from './jetstream-delivery.js';

export interface PullerOptions {
  stream: string;
  consumer: string;
  /** Deliveries held (queued or in the batch) before we stop asking for more. */
  maxHeld: number;
  /** Payload bytes held before we stop asking for more: what bounds the partition's memory. */
  maxHeldBytes: number;
  /**
   * Bytes one request may bring. The server queues a pull's deliveries on
   * the connection, and disconnects a client that has more than its
   * max_pending (64 MiB by default) waiting: every partition pulling 256
   * large messages at once did exactly that.
   */
  maxBytes: number;
  expiresMs: number;
  /** Refusals of at least this long (and 10 in a row) mean the consumer or stream is gone (noConsumerAfterMs). */
  refusedForMs: number;
  /**
   * Asks JetStream whether the consumer or its stream is gone (partition-consumer.ts). Pulls on a
   * missing consumer are dropped by the server without any answer, so a refused or unanswered
   * pull is followed by this question; missing for refusedForMs, the partition is set up again.
   */
  consumerMissing(): Promise<boolean>;
}

export class PartitionPuller {
  private readonly queue: Delivery[] = [];
  private queueHead = 0;
  private sub?: Subscription;
  private inbox = '';
  /** Deliveries still owed by the open request; 0 when none is open. */
  private owed = 0;
  private deliveredToRequest = 0;
  /** The next message is larger than maxBytes: ask for it alone with the server's payload limit. */
  private needsLargeRequest = false;
  private requestOpenedAt = 0;
  /** Deliveries handed out and not yet released (acknowledged or given back), and their payload bytes. */
  private outstanding = 0;
  private outstandingBytes = 0;
  private queuedBytes = 0;
  private wake?: () => void;
  private stopped = false;
  private backoffUntil = 0;
  private lastStatus = '';
  private refusals = 0;
  /** When the current run of refused pulls began. */
  private refusedSince = 0;
  private checkingConsumer = false;
  /** When JetStream first answered that the consumer is missing; 0 while it is found. */
  private missingSince = 0;
  /** Set when pulls keep being refused (consumer deleted, stream gone): the partition must be set up again. */
  failure?: Error;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: PullerOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.inbox = createInbox();
    this.sub = this.nc.subscribe(this.inbox, {
      callback: (error, msg) => (error ? this.onStatus('subscription error', error.message) : this.onMessage(msg)),
    });
    this.maybeRequest();
  }

  /** Next delivery in stream order, if one is queued. */
  take(): Delivery | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const delivery = this.queue[this.queueHead]!;
    this.queue[this.queueHead++] = undefined as unknown as Delivery;
    this.queuedBytes -= delivery.msg.data.length;
    this.outstandingBytes += delivery.msg.data.length;
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    this.outstanding++;
    return delivery;
  }

  /** Deliveries that left the writer's hands (acknowledged, dead-lettered, given back). */
  release(deliveries: readonly Delivery[]): void {
    this.outstanding -= deliveries.length;
    for (const d of deliveries) this.outstandingBytes -= d.msg.data.length;
    this.maybeRequest();
  }

  queued(): Delivery[] {
    return this.queue.slice(this.queueHead);
  }

  /** Resolves when a delivery is queued, the wait is over, or the puller stops. */
  async waitForMessage(ms: number): Promise<void> {
    if (this.queueHead < this.queue.length || this.stopped) return;
    this.maybeRequest();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
  }

  /** Stops asking; answers the deliveries still queued (the caller gives them back). */
  stop(): Delivery[] {
    this.stopped = true;
    this.wake?.();
    const rest = this.queued();
    this.queue.length = 0;
    this.queueHead = 0;
    this.queuedBytes = 0;
    return rest;
  }

  /** Ends the subscription; deliveries of a request still open on the server then wait for their ack deadline. */
  close(): void {
    this.stopped = true;
    this.sub?.unsubscribe();
    this.sub = undefined;
  }

  private onMessage(msg: Msg): void {
    const delivery = toDelivery(msg);
    if (!delivery) {
      const code = msg.headers?.code ?? 0;
      if (code === 100) return; // idle heartbeat
      this.onStatus(String(code), msg.headers?.description ?? '');
      return;
    }
    if (this.owed > 0) this.owed--;
    this.deliveredToRequest++;
    this.refusals = 0;
    if (this.stopped) {
      delivery.nak();
      return;
    }
    this.queue.push(delivery);
    this.queuedBytes += delivery.msg.data.length;
    this.wake?.();
    if (this.owed === 0) this.maybeRequest();
  }

  private onStatus(code: string, description: string): void {
    this.owed = 0;
    // The request's byte budget is spent: normal, unless not even one message fitted.
    if (code === '409' && /exceeds maxbytes/i.test(description)) {
      this.needsLargeRequest = this.deliveredToRequest === 0;
      this.maybeRequest();
      return;
    }
    // 408: the request expired (normal when idle). Anything else (consumer deleted,
    // no responders while JetStream restarts, too many waiting requests): retry a bit later.
    if (code !== '408' && code !== '404') {
      const text = `${code} ${description}`;
      if (text !== this.lastStatus)
        this.logger.warn({ consumer: this.options.consumer, status: text }, 'pull request refused');
      this.lastStatus = text;
      if (this.refusals++ === 0) this.refusedSince = Date.now();
      if (this.refusals >= 10 && Date.now() - this.refusedSince >= this.options.refusedForMs) {
        this.failure = new Error(
          `pull requests refused ${this.refusals} times in ${Math.round((Date.now() - this.refusedSince) / 1000)} s: ${text}`,
        );
        this.wake?.();
      }
      this.checkConsumer(text);
      this.backoffUntil = Date.now() + 1_000;
      setTimeout(() => this.maybeRequest(), 1_000).unref();
      return;
    }
    this.lastStatus = '';
    this.refusals = 0;
    this.maybeRequest();
  }

  private checkConsumer(why: string): void {
    if (this.checkingConsumer || this.stopped || this.failure) return;
    this.checkingConsumer = true;
    const settle = (missing: boolean) => {
      this.checkingConsumer = false;
      if (!missing) {
        this.missingSince = 0;
        return;
      }
      const now = Date.now();
      if (this.missingSince === 0) this.missingSince = now;
      if (now - this.missingSince < this.options.refusedForMs || this.failure) return;
      this.failure = new Error(`consumer ${this.options.consumer} or its stream is missing (${why})`);
      this.wake?.();
    };
    this.options.consumerMissing().then(settle, () => settle(false));
  }

  private maybeRequest(): void {
    if (this.stopped || !this.sub || this.nc.isClosed()) return;
    const now = Date.now();
    if (now < this.backoffUntil) return;
    // A request the server forgot (reconnect) or dropped (its consumer is missing) never sends its
    // 408: give up on it after its expiry, and ask whether the consumer is still there.
    if (this.owed > 0) {
      if (now - this.requestOpenedAt < this.options.expiresMs + 2_000) return;
      this.checkConsumer('pull request unanswered');
    }
    const held = this.outstanding + this.queue.length - this.queueHead;
    const room = this.options.maxHeld - held;
    const bytesRoom = Math.min(
      this.options.maxBytes,
      this.options.maxHeldBytes - this.outstandingBytes - this.queuedBytes,
    );
    if (room < Math.min(16, this.options.maxHeld / 2) || bytesRoom < this.options.maxBytes / 4) return;
    const large = this.needsLargeRequest;
    this.needsLargeRequest = false;
    const batch = large ? 1 : room;
    // A message larger than the byte room is asked for alone, with the server's payload limit.
    const maxBytes = large ? Math.max(this.options.maxBytes, this.nc.info?.max_payload ?? 0) + 4096 : bytesRoom;
    this.owed = batch;
    this.deliveredToRequest = 0;
    this.requestOpenedAt = now;
    const body = JSON.stringify({ batch, max_bytes: maxBytes, expires: this.options.expiresMs * 1_000_000 });
    this.nc.publish(`$JS.API.CONSUMER.MSG.NEXT.${this.options.stream}.${this.options.consumer}`, body, {
      reply: this.inbox,
    });
  }
}
