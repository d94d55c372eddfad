/**
 * Per-process cache of each company's parsed report records, so that
 * get_all_ex evaluates its query over memory instead of reading tens of
 * thousands of hashes per call (docs/reports.md, "Read path").
 *
 * Report writes: every write script bumps the company's version and logs
 * the id in a change log; each read compares the version (one GET) and
 * re-reads only the changed ids, so a write is visible to the next read on
 * every process (read-after-write, §2.4).
 *
 * Event writes: the writer updates last_update, last_change,
 * last_changed_by, last_iteration and last_metrics of a report without
 * touching the version, but always sets summary_seq with them. A scan of
 * the company's summary_seq values (pipelines of SCAN_CHUNK reports) finds the
 * reports whose value moved, and only those are re-read. A read uses the
 * last scan while it started less than EVENT_FIELDS_FRESH_MS ago; up to
 * EVENT_FIELDS_MAX_AGE_MS it still does but starts a new scan in the
 * background; beyond, it waits for a scan. events.md §2 gives event side
 * effects one second to become visible, writer included.
 */
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { StoredRecord } from '../query-language/types.js';
import { decodeEntityHash } from './record-codec.js';
import type { ReportKeys } from './report-keys.js';

export const EVENT_FIELDS_FRESH_MS = 250;
export const EVENT_FIELDS_MAX_AGE_MS = 600;
const MAX_CACHED_COMPANIES = 200;

/** Reports per scan pipeline: bounds what one round trip holds. */
const SCAN_CHUNK = 500;

interface CompanyReports {
  company: string;
  version: number;
  records: Map<string, StoredRecord>;
  /** summary_seq of the reports that received events, as last read. */
  seqs: Map<string, string>;
  list: StoredRecord[] | undefined;
  /** When the last completed summary_seq scan started. */
  eventsCheckedAt: number;
  eventScan: Promise<void> | undefined;
  inflight: { started: number; promise: Promise<void> } | undefined;
}

export class ReportSnapshots {
  private readonly companies = new Map<string, CompanyReports>();
  private tick = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The company's report records, current as of this call (frozen objects, do not modify). */
  async reports(company: string): Promise<readonly StoredRecord[]> {
    const state = await this.fresh(company);
    const age = this.clock() - state.eventsCheckedAt;
    if (age >= EVENT_FIELDS_MAX_AGE_MS) await this.scanEvents(state);
    else if (age >= EVENT_FIELDS_FRESH_MS) this.scanEvents(state).catch(() => undefined); // the next read retries
    return (state.list ??= [...state.records.values()]);
  }

  /** One summary_seq scan at a time per company; callers join the running one. */
  private scanEvents(state: CompanyReports): Promise<void> {
    state.eventScan ??= (async () => {
      const startedAt = this.clock();
      try {
        const ids = [...state.records.keys()];
        const moved: string[] = [];
        for (let from = 0; from < ids.length; from += SCAN_CHUNK) {
          const chunk = ids.slice(from, from + SCAN_CHUNK);
          const pipeline = this.redis.multi();
          for (const id of chunk) pipeline.hGet(this.keys.task(state.company, id), 'summary_seq');
          const seqs = (await pipeline.execAsPipeline()) as unknown as Array<string | null>;
          chunk.forEach((id, i) => {
            const seq = seqs[i];
            if (seq !== null && seq !== undefined && state.records.has(id) && state.seqs.get(id) !== seq) moved.push(id);
          });
        }
        if (moved.length > 0) await this.reload(state, moved, false);
        state.eventsCheckedAt = startedAt;
      } finally {
        state.eventScan = undefined;
      }
    })();
    return state.eventScan;
  }

  /** Refreshes, joining a refresh already running only when it started after this call arrived. */
  private async fresh(company: string): Promise<CompanyReports> {
    const state = this.state(company);
    const arrived = ++this.tick;
    for (;;) {
      const current = state.inflight;
      if (current === undefined) {
        const run = { started: ++this.tick, promise: this.refresh(company, state) };
        state.inflight = run;
        try {
          await run.promise;
        } finally {
          if (state.inflight === run) state.inflight = undefined;
        }
        return state;
      }
      const ok = await current.promise.then(
        () => true,
        () => false,
      );
      if (ok && current.started > arrived) return state;
      if (state.inflight === current) state.inflight = undefined;
    }
  }

  private state(company: string): CompanyReports {
    let state = this.companies.get(company);
    if (state === undefined) {
      state = { company, version: -1, records: new Map(), seqs: new Map(), list: undefined, eventsCheckedAt: 0, eventScan: undefined, inflight: undefined };
      if (this.companies.size >= MAX_CACHED_COMPANIES) this.companies.delete(this.companies.keys().next().value!);
    } else {
      this.companies.delete(company);
    }
    this.companies.set(company, state);
    return state;
  }

  private async refresh(company: string, state: CompanyReports): Promise<void> {
    const startedAt = this.clock();
    const [versionText, floorText] = (await this.redis
      .multi()
      .get(this.keys.reportVersion(company))
      .get(this.keys.reportChangesFloor(company))
      .exec()) as unknown as [string | null, string | null];
    const version = Number(versionText ?? 0);
    if (state.version < 0 || state.version < Number(floorText ?? 0)) {
      await this.reload(state, await this.redis.sMembers(this.keys.reports(company)), true);
      // A full read is as fresh as a scan.
      state.eventsCheckedAt = startedAt;
    } else if (version > state.version) {
      const changed = await this.redis.zRangeByScore(this.keys.reportChanges(company), `(${state.version}`, '+inf');
      await this.reload(state, changed, false);
    }
    state.version = Math.max(state.version, version);
  }

  /**
   * Re-reads `ids` (dropping the ones that no longer exist); `all` replaces
   * the whole map. Hashes and last_metrics come in one transaction and are
   * applied right after it, so concurrent reloads apply in Redis order.
   */
  private async reload(state: CompanyReports, ids: string[], all: boolean): Promise<void> {
    let rows: Array<Record<string, string>> = [];
    if (ids.length > 0) {
      const multi = this.redis.multi();
      for (const id of ids) multi.hGetAll(this.keys.task(state.company, id)).hGetAll(this.keys.lastMetrics(state.company, 't', id));
      rows = (await multi.exec()) as unknown as Array<Record<string, string>>;
    }
    if (all) {
      state.records = new Map();
      state.seqs = new Map();
    }
    ids.forEach((id, i) => {
      const hash = rows[2 * i] ?? {};
      const record = hash.type === 'report' ? decodeEntityHash(hash, rows[2 * i + 1]) : undefined;
      if (record === undefined) {
        state.records.delete(id);
        state.seqs.delete(id);
        return;
      }
      state.records.set(id, record);
      if (hash.summary_seq !== undefined) state.seqs.set(id, hash.summary_seq);
      else state.seqs.delete(id);
    });
    state.list = undefined;
  }
}
