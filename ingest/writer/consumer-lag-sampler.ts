/** Samples the backlog of each owned partition's consumer into a gauge (the SRE's "are writers keeping up"). */
import type { JetStreamManager } from 'nats';
import { consumerName, streamName } from '../../shared/events/wire-format.js';
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
    for (const p of this.sampled) this.metrics.consumerPending.remove({ partition: String(p) });
    this.sampled.clear();
  }

  private async sample(): Promise<void> {
    const owned = new Set(this.owned());
    for (const p of this.sampled) if (!owned.has(p)) this.metrics.consumerPending.remove({ partition: String(p) });
    this.sampled = owned;
    for (const p of owned) {
      const info = await this.jsm.consumers.info(streamName(this.streamPrefix), consumerName(this.streamPrefix, p)).catch(() => undefined);
      if (info) this.metrics.consumerPending.set({ partition: String(p) }, info.num_pending + info.num_ack_pending);
    }
  }
}
