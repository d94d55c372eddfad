/**
 * Consumes one owned partition strictly in stream order: pulls messages,
 * accumulates a batch until WRITER_BATCH_EVENTS records, a byte cap or
 * WRITER_FLUSH_MS, stores it (batch-storer.ts), and only then takes the
 * next. A control message is run at its place, after the batch before it.
 *
 * Stopping: `drop` (lease lost) abandons everything at once, acknowledging
 * nothing; the next owner gets the messages again. `handBack` (rebalance,
 * shutdown) stops pulling, stores what is held (until a deadline), and gives
 * back with an immediate nak what it could not store.
 */
import type { JetStreamManager, NatsConnection } from 'nats';
import { HEADER_KIND, HEADER_VERSION, KIND_CONTROL, READABLE_WIRE_VERSIONS } from '../../shared/events/wire-format.js';
import type { Logger } from '../../shared/observability/logger.js';
import { storeBatch, type BatchStores } from './batch-storer.js';
import type { ControlRunner } from './control-runner.js';
import type { Delivery } from './jetstream-delivery.js';
import { PartitionPuller } from './partition-puller.js';
import { CONSUMER_CREATION_HOLD_MS, consumerMissing, preparePartitionConsumer } from './partition-consumer.js';
import { GaveUp, LeaseLost, untilStored, type RetryOptions } from './store-retry.js';
import { WriteBatch } from './write-batch.js';
import { WriteFence } from './write-fence.js';
import type { WriterSettings } from './writer-settings.js';

/** Deliveries arrived out of order: the partition must be consumed again from its first unacknowledged message. */
class DeliveryGap extends Error {
  override readonly name = 'DeliveryGap';
}

export interface PartitionWorkerDeps {
  nc: NatsConnection;
  jsm: JetStreamManager;
  settings: WriterSettings;
  stores: BatchStores;
  control: ControlRunner;
  logger: Logger;
  /** False once the lease may have passed to another writer: store nothing more. */
  stillOwned(): boolean;
  /** The loop failed unexpectedly: the partition must be given up and taken again. */
  onFailure(error: unknown): void;
}

export class PartitionWorker {
  private readonly batch = new WriteBatch();
  private puller?: PartitionPuller;
  private readonly giveUp = new AbortController();
  private stopping = false;
  private loop?: Promise<void>;
  private keepAlive?: NodeJS.Timeout;
  private lastSeq = 0;
  private readonly retry: RetryOptions;
  private readonly fence: WriteFence;

  constructor(
    readonly partition: number,
    private readonly deps: PartitionWorkerDeps,
  ) {
    const { stores, settings } = deps;
    // Once dropped, this worker's calls still under way (waiting for an InfluxDB slot) must not
    // write even when the partition is taken again: the new tenure has a worker of its own.
    this.fence = new WriteFence(partition, () => !this.giveUp.signal.aborted && deps.stillOwned());
    this.retry = {
      maxDelayMs: settings.maxRetryDelayMs,
      signal: this.giveUp.signal,
      onRetry: (store) => stores.metrics.retries.inc({ store }),
      logger: deps.logger.child({ partition }),
      fence: this.fence,
    };
  }

  start(): void {
    this.loop = this.run().catch((error: unknown) => {
      // Told to stop (drop, or the hand-back deadline): nothing to report.
      if ((error instanceof GaveUp || error instanceof LeaseLost) && this.stopping) return;
      if (error instanceof DeliveryGap)
        this.deps.logger.warn(
          { partition: this.partition, err: error },
          'deliveries out of order; consuming the partition again from its first unacknowledged message',
        );
      else if (error instanceof LeaseLost)
        this.deps.logger.warn(
          { partition: this.partition, err: error },
          'partition lease not certain any more; giving the partition up',
        );
      else
        this.deps.logger.error(
          { partition: this.partition, err: error },
          'partition consumer failed; giving the partition up',
        );
      this.abandon();
      this.deps.onFailure(error);
    });
  }

  /** Lease lost: stop now, acknowledge nothing. */
  drop(): void {
    this.abandon();
  }

  async handBack(): Promise<void> {
    this.stopping = true;
    const deadline = setTimeout(() => this.giveUp.abort(), this.deps.settings.stopDeadlineMs);
    try {
      await this.loop;
    } finally {
      clearTimeout(deadline);
      this.abandon();
    }
  }

  private abandon(): void {
    this.stopping = true;
    this.giveUp.abort();
    clearInterval(this.keepAlive);
    this.puller?.stop();
    this.puller?.close();
  }

  private async run(): Promise<void> {
    const { deps } = this;
    const { settings } = deps;
    const holdUntil = Date.now() + CONSUMER_CREATION_HOLD_MS;
    const prepared = await untilStored('nats', this.retry, () =>
      preparePartitionConsumer(deps.jsm, settings, this.partition, holdUntil),
    );
    if (prepared.seenUpTo > 0)
      deps.logger.info(
        { partition: this.partition, seenUpTo: prepared.seenUpTo },
        'partition taken over with unacknowledged messages: replaying them first',
      );
    if (this.stopping) return;
    const puller = new PartitionPuller(
      deps.nc,
      {
        stream: prepared.stream,
        consumer: prepared.consumer,
        maxHeld: settings.maxAckPending,
        maxHeldBytes: settings.maxHeldBytes,
        maxBytes: settings.pullMaxBytes,
        expiresMs: settings.pullExpiresMs,
        refusedForMs: settings.noConsumerAfterMs,
        consumerMissing: () => consumerMissing(deps.jsm, prepared.stream, prepared.consumer),
      },
      deps.logger,
    );
    this.puller = puller;
    puller.start();
    this.keepAlive = setInterval(() => this.keepHeldAlive(), settings.ackWaitMs / 3);
    const batch = this.batch;
    let expectedConsumerSeq = prepared.nextConsumerSeq;
    while (!this.stopping) {
      if (puller.failure) throw puller.failure;
      const delivery = puller.take();
      if (!delivery) {
        const wait = batch.empty ? 1_000 : batch.startedAt + settings.flushMs - Date.now();
        if (wait > 0) await puller.waitForMessage(wait);
        else await this.flush();
        continue;
      }
      // A delivery lost in transit (a NATS reconnect) comes back only after its ack deadline, behind
      // later messages: storing those first would let it undo their overwrites. Start the partition
      // over instead: nothing past the gap is acknowledged, and a recreated consumer replays in order.
      if (delivery.consumerSeq !== expectedConsumerSeq)
        throw new DeliveryGap(`expected consumer seq ${expectedConsumerSeq}, got ${delivery.consumerSeq}`);
      expectedConsumerSeq++;
      if (delivery.streamSeq <= this.lastSeq) {
        // A second copy of a message we hold (its ack deadline passed meanwhile): the first copy decides.
        if (this.holds(delivery.streamSeq)) {
          puller.release([delivery]);
          continue;
        }
        throw new DeliveryGap(`stream seq ${delivery.streamSeq} redelivered after ${this.lastSeq}`);
      }
      this.lastSeq = delivery.streamSeq;
      if (delivery.streamSeq <= prepared.seenUpTo) delivery.possiblyRedelivered = true;
      const version = delivery.header(HEADER_VERSION);
      const readable = version === undefined || READABLE_WIRE_VERSIONS.has(version);
      if (delivery.header(HEADER_KIND) === KIND_CONTROL && readable) {
        await this.flush();
        await deps.control.run(delivery, this.partition, this.retry);
        puller.release([delivery]);
        continue;
      }
      // Reading a message never throws (WriteBatch refuses what it cannot read): a message that
      // failed the partition here would fail every next owner too, forever.
      if (readable) batch.add(delivery);
      else batch.refuseMessage(delivery, 'undecodable', `unknown wire version ${version}`);
      if (batch.events >= settings.batchEvents || batch.points.length >= settings.maxBatchBytes) await this.flush();
    }
    if (this.giveUp.signal.aborted) return; // dropped: the next owner replays what we hold
    // Handing back: store what is held, then return what was pulled but not taken.
    await this.flush();
    // A pull still open on the server may deliver to the closed inbox: those messages stay
    // unacknowledged, and the next owner recreates the consumer to replay them in order.
    for (const d of puller.stop()) d.nak();
  }

  private async flush(): Promise<void> {
    if (this.batch.empty) return;
    this.fence.take(); // calls made for the control message or the set-up before this batch
    try {
      await storeBatch(this.batch, this.partition, this.deps.stores, this.retry);
    } catch (error) {
      // When the batch's partial writes were issued: the next owner writes them again, after these.
      const seqs = [this.batch.deliveries[0]?.streamSeq, this.batch.deliveries.at(-1)?.streamSeq];
      this.deps.logger.debug(
        { partition: this.partition, messages: this.batch.deliveries.length, seqs, ...this.fence.take() },
        'batch abandoned',
      );
      throw error;
    }
    this.puller?.release(this.batch.deliveries);
    this.batch.reset();
  }

  private holds(streamSeq: number): boolean {
    return (
      this.batch.deliveries.some((d) => d.streamSeq === streamSeq) ||
      (this.puller?.queued() ?? []).some((d) => d.streamSeq === streamSeq)
    );
  }

  private keepHeldAlive(): void {
    for (const d of this.batch.deliveries) d.working();
    for (const d of this.puller?.queued() ?? []) d.working();
  }
}
