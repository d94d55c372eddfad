/**
 * "The pipeline has drained": every partition's durable consumer of the
 * events stream exists and has nothing pending and nothing delivered but
 * unacknowledged. Writers acknowledge a message only after the stores took
 * it, so from then on everything acknowledged to clients is in the stores.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from 'nats';
import { urlList } from '../../shared/config/url-list.js';
import { consumerName, streamName } from '../../shared/events/wire-format.js';

export interface DrainState {
  drained: boolean;
  /** What was left at the last look (for the report when the deadline passed). */
  detail: string;
}

export class PipelineWatch {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly prefix: string,
    private readonly partitions: number,
  ) {}

  /** `natsUrl`: one URL or several, comma-separated (a cluster's seeds). */
  static async open(natsUrl: string, prefix: string, partitions: number): Promise<PipelineWatch> {
    // Reconnects forever: the bench's own connection outlives NATS faults.
    const nc = await connect({
      servers: urlList(natsUrl),
      name: 'fault-bench',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
    return new PipelineWatch(nc, prefix, partitions);
  }

  async look(): Promise<DrainState> {
    const jsm = await this.nc.jetstreamManager({ timeout: 3_000 });
    const left: string[] = [];
    for (let p = 0; p < this.partitions; p++) {
      try {
        const info = await jsm.consumers.info(streamName(this.prefix), consumerName(this.prefix, p));
        if (info.num_pending > 0 || info.num_ack_pending > 0)
          left.push(`p${p}: ${info.num_pending} pending, ${info.num_ack_pending} unacknowledged`);
      } catch (error) {
        left.push(`p${p}: ${(error as Error).message}`);
      }
    }
    return { drained: left.length === 0, detail: left.join('; ') };
  }

  async waitDrained(timeoutMs: number): Promise<DrainState> {
    const deadline = Date.now() + timeoutMs;
    let state: DrainState = { drained: false, detail: 'not looked at' };
    for (;;) {
      try {
        state = await this.look();
      } catch (error) {
        state = { drained: false, detail: (error as Error).message };
      }
      if (state.drained || Date.now() >= deadline) return state;
      await sleep(250);
    }
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}
