/**
 * bench:ingest's visibility lag: every request carries a marker event of its
 * own task, polled in InfluxDB from its acknowledgement until readable.
 */
import type { InfluxStore } from '../../shared/stores/influx-store.js';
import { cpuSecondsOf } from './process-cpu.js';

/** Polls markers (one unique task per request) until visible, recording ack → visible lag. */
export class LagProbe {
  private readonly pending = new Map<string, number>();
  readonly lags: number[] = [];
  /** Every query sent, to measure what they cost InfluxDB (`influxSecondsOf`). */
  readonly queries: string[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly influx: InfluxStore) {
    this.loop = this.run();
  }

  acked(marker: string): void {
    this.pending.set(marker, performance.now());
  }

  private async run(): Promise<void> {
    while (this.running || this.pending.size > 0) {
      if (this.pending.size > 0) {
        const markers = [...this.pending.keys()];
        const where = markers.map((m) => `"e"='${m}'`).join(' OR ');
        const query = `SELECT LAST("y") FROM "scalar" WHERE ${where} GROUP BY "e"`;
        this.queries.push(query);
        const results = await this.influx.query(query);
        const now = performance.now();
        for (const series of results[0]?.series ?? []) {
          const marker = series.tags?.e;
          const ackedAt = marker === undefined ? undefined : this.pending.get(marker);
          if (ackedAt !== undefined) {
            this.lags.push(now - ackedAt);
            this.pending.delete(marker!);
          }
        }
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /**
   * InfluxDB's CPU seconds for this probe's queries, measured by sending them again, one after another,
   * once InfluxDB is done with the phase: during the phase they ran beside the writes (back to back, 10 ms
   * apart, while any marker was unseen), and item 1 compares InfluxDB's cost of the pipeline's points with
   * the raw baseline, which has no probe.
   */
  async influxSecondsOf(influxPid: number | undefined): Promise<number> {
    if (influxPid === undefined || this.queries.length === 0) return 0;
    const before = cpuSecondsOf(influxPid);
    for (const query of this.queries) await this.influx.query(query);
    const after = cpuSecondsOf(influxPid);
    return before === undefined || after === undefined ? 0 : after - before;
  }
}
