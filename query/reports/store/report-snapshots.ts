/**
 * Per-process cache of each company's parsed report records, so that
 * get_all_ex evaluates its query over memory instead of reading tens of
 * thousands of hashes per call (docs/reports.md, "Read path").
 *
 * Every change of a report record bumps the company's version and logs the
 * id in a change log, in the script that makes the change
 * (shared/entities/report-change-log.ts): the report write scripts, and the
 * events writer's summary script for the fields events maintain
 * (last_update, last_change, last_changed_by, last_iteration,
 * last_metrics). Each read compares the version (one round trip) and
 * re-reads only the changed ids, so a report write is visible to the next
 * read on every process (read-after-write, §2.4), and so is an event
 * write once the writer stored it: what a read costs does not depend on
 * how many reports the company has, only on what changed since the last.
 */
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { StoredRecord } from '../query-language/types.js';
import { decodeEntityHash } from './record-codec.js';
import type { ReportKeys } from './report-keys.js';

const MAX_CACHED_COMPANIES = 200;

interface CompanyReports {
  company: string;
  version: number;
  records: Map<string, StoredRecord>;
  list: StoredRecord[] | undefined;
  inflight: { started: number; promise: Promise<void> } | undefined;
}

export class ReportSnapshots {
  private readonly companies = new Map<string, CompanyReports>();
  private tick = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
  ) {}

  /** The company's report records, current as of this call (frozen objects, do not modify). */
  async reports(company: string): Promise<readonly StoredRecord[]> {
    const state = await this.fresh(company);
    return (state.list ??= [...state.records.values()]);
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
      state = { company, version: -1, records: new Map(), list: undefined, inflight: undefined };
      if (this.companies.size >= MAX_CACHED_COMPANIES) this.companies.delete(this.companies.keys().next().value!);
    } else {
      this.companies.delete(company);
    }
    this.companies.set(company, state);
    return state;
  }

  private async refresh(company: string, state: CompanyReports): Promise<void> {
    const [versionText, floorText] = (await this.redis
      .multi()
      .get(this.keys.reportVersion(company))
      .get(this.keys.reportChangesFloor(company))
      .exec()) as unknown as [string | null, string | null];
    const version = Number(versionText ?? 0);
    if (state.version < 0 || state.version < Number(floorText ?? 0)) {
      await this.reload(state, await this.redis.sMembers(this.keys.reports(company)), true);
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
      for (const id of ids)
        multi.hGetAll(this.keys.task(state.company, id)).hGetAll(this.keys.lastMetrics(state.company, 't', id));
      rows = (await multi.exec()) as unknown as Array<Record<string, string>>;
    }
    if (all) state.records = new Map();
    ids.forEach((id, i) => {
      const hash = rows[2 * i] ?? {};
      const record = hash.type === 'report' ? decodeEntityHash(hash, rows[2 * i + 1]) : undefined;
      if (record === undefined) state.records.delete(id);
      else state.records.set(id, record);
    });
    state.list = undefined;
  }
}
