/**
 * InfluxDB's storage engine as its /debug/vars shows it: what its write
 * cache holds and whether compactions run, and a wait until it has nothing
 * left to do (bench:storage measures the files after it; bench:ingest counts
 * InfluxDB's CPU for a phase's points until then).
 */
import { progress } from './bench-environment.js';

export interface EngineState {
  cachedBytes: number;
  busy: boolean;
  compactions: number;
}

/** Bytes in the write cache, whether a compaction runs or waits, compactions done: of `database`, or of all. */
export async function engineState(influxUrl: string, database?: string): Promise<EngineState> {
  const vars = (await (await fetch(`${influxUrl}/debug/vars`)).json()) as Record<
    string,
    { name: string; tags?: Record<string, string> | null; values: Record<string, number> }
  >;
  const state = { cachedBytes: 0, busy: false, compactions: 0 };
  for (const stat of Object.values(vars)) {
    if (stat.tags?.database === undefined || (database !== undefined && stat.tags.database !== database)) continue;
    if (stat.name === 'tsm1_cache') state.cachedBytes += stat.values.memBytes ?? 0;
    if (stat.name === 'tsm1_engine')
      for (const [key, value] of Object.entries(stat.values)) {
        // Not the Queue counters: tsmOptimizeCompactionQueue stays at 1 on an idle, fully compacted shard (influxd 1.6).
        if (key.endsWith('Active') && value > 0) state.busy = true;
        if (key.endsWith('Compactions')) state.compactions += value;
      }
  }
  return state;
}

/**
 * Waits until InfluxDB's write cache is on disk and no compaction has run,
 * waited or started for `quietSeconds` in a row (of `database`, or of all).
 * A quiet period longer than compact-full-write-cold-duration therefore
 * includes the full compaction, or InfluxDB found nothing left to compact.
 */
export async function settle(influxUrl: string, what: string, quietSeconds: number, database?: string): Promise<void> {
  progress(`waiting for InfluxDB: ${what}`);
  const started = Date.now();
  let quietSince = 0;
  let compactions = -1;
  let lastReport = started;
  for (;;) {
    const state = await engineState(influxUrl, database);
    if (state.cachedBytes > 0 || state.busy || state.compactions !== compactions) quietSince = 0;
    else if (quietSince === 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= quietSeconds * 1000) return;
    compactions = state.compactions;
    if (Date.now() - lastReport > 15_000) {
      lastReport = Date.now();
      progress(
        `  ${Math.round((Date.now() - started) / 1000)} s: cache ${state.cachedBytes} bytes, compacting ${state.busy}, ${state.compactions} compactions so far`,
      );
    }
    if (Date.now() - started > 30 * 60_000) throw new Error(`InfluxDB did not settle (${what}) within 30 min`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
