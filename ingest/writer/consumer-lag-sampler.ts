/**
 * Samples each owned partition's consumer (the SRE's "are writers keeping
 * up"): its backlog in messages, how long its oldest message has waited
 * (lag in seconds), and its acknowledgement floor, which stands still when
 * the partition stalls.
 */
import type { JetStreamManager } from 'nats';
import { consumerName, partitionSubject, streamName } from '../../shared/events/wire-format.js';
import type { WriterMetrics } from './writer-metrics.js';

export class ConsumerLagSampler {
  private timer?: NodeJS.Timeout;
  private sampled = new Set<number>();

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly streamPrefix: string,
    private readonly metrics: WriterMetrics,
    private readonly owned: () => number[],
    private readonly everyMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample().catch(() => undefined), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    for (const p of this.sampled) this.forget(p);
    this.sampled.clear();
  }

  private forget(partition: number): void {
    const labels = { partition: String(partition) };
    this.metrics.consumerPending.remove(labels);
    this.metrics.lagSeconds.remove(labels);
    this.metrics.ackFloor.remove(labels);
  }

  private async sample(): Promise<void> {
    const owned = new Set(this.owned());
    for (const p of this.sampled) if (!owned.has(p)) this.forget(p);
    this.sampled = owned;
    const stream = streamName(this.streamPrefix);
    for (const p of owned) {
      const info = await this.jsm.consumers.info(stream, consumerName(this.streamPrefix, p)).catch(() => undefined);
      if (!info) continue;
      const labels = { partition: String(p) };
      const pending = info.num_pending + info.num_ack_pending;
      this.metrics.consumerPending.set(labels, pending);
      this.metrics.ackFloor.set(labels, info.ack_floor.stream_seq);
      this.metrics.lagSeconds.set(
        labels,
        pending === 0 ? 0 : await this.oldestWaitSeconds(stream, p, info.ack_floor.stream_seq),
      );
    }
  }

  /** Age of the partition's first message past its ack floor: acknowledged messages leave a work-queue stream, so it is the oldest not yet stored. */
  private async oldestWaitSeconds(stream: string, partition: number, ackFloor: number): Promise<number> {
    // nats.js types next_by_subj for direct gets only; the server's STREAM.MSG.GET takes it too (2.9 and later).
    const query = { seq: ackFloor + 1, next_by_subj: partitionSubject(this.streamPrefix, partition) };
    const message = await this.jsm.streams
      .getMessage(stream, query as unknown as { seq: number })
      .catch(() => undefined);
    return message === undefined ? 0 : Math.max(0, (Date.now() - message.time.getTime()) / 1000);
  }
}
