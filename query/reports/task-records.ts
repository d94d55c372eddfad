/**
 * Task and model records for reports.get_task_data (reports.md §3.10, §6),
 * read fresh from Redis: event writes change them continuously, so they are
 * not cached. A request naming plain ids reads only those hashes; any other
 * request reads the company's index sets.
 */
import type { RedisClient } from '../../shared/stores/redis-store.js';
import type { StoredRecord } from './query-language/types.js';
import { decodeEntityHash, decodeLastMetrics } from './store/record-codec.js';
import type { ReportKeys } from './store/report-keys.js';

export type EntityKind = 'task' | 'model';

/** The ids of an `id` condition that is a plain inclusion list (no operators, exclusions or null), else undefined. */
export function plainIds(request: Record<string, unknown>): string[] | undefined {
  const filters = request.filters;
  if (filters !== null && typeof filters === 'object' && 'id' in filters) return undefined;
  const value = typeof request.id === 'string' ? [request.id] : request.id;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (!value.every((v) => typeof v === 'string' && !v.startsWith('__$') && !v.startsWith('-'))) return undefined;
  return [...new Set(value as string[])];
}

/** Whether conditions or ordering read last_metrics (then every record needs it, not only the page). */
export function readsLastMetrics(request: Record<string, unknown>): boolean {
  const parts = [request.order_by, request._any_, request._all_, request._or_, request._and_, request.any, request.all];
  return JSON.stringify(parts).includes('last_metrics');
}

export class TaskRecords {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
  ) {}

  /** The records of `kind` owned by one of `companies` that the request can match. */
  async load(
    kind: EntityKind,
    companies: readonly string[],
    request: Record<string, unknown>,
    withMetrics: boolean,
  ): Promise<StoredRecord[]> {
    const namespace = kind === 'task' ? 't' : 'm';
    const ids = plainIds(request);
    // (company, id) pairs to read: a record lives in its company's hash slot.
    const pairs: Array<[string, string]> = [];
    if (ids !== undefined) {
      for (const c of companies) for (const id of ids) pairs.push([c, id]);
    } else {
      const sets = await Promise.all(
        companies.map((c) =>
          this.redis.sMembers((namespace === 't' ? this.keys.companyTasks : this.keys.companyModels)(c)),
        ),
      );
      companies.forEach((c, i) => {
        for (const id of new Set(sets[i])) pairs.push([c, id]);
      });
    }
    if (pairs.length === 0) return [];
    // Commands issued in one tick go out as one pipeline (per node on a cluster).
    const hashes = await Promise.all(pairs.map(([c, id]) => this.redis.hGetAll(this.keys.entity(c, namespace, id))));
    const records = hashes
      .map((hash) => decodeEntityHash(hash))
      .filter((r): r is StoredRecord => r !== undefined && companies.includes(r.company as string));
    return withMetrics ? this.withLastMetrics(kind, records) : records;
  }

  /** The records with their last_metrics (reports.md §6.1) read in. */
  async withLastMetrics(kind: EntityKind, records: readonly StoredRecord[]): Promise<StoredRecord[]> {
    if (records.length === 0) return [];
    const namespace = kind === 'task' ? 't' : 'm';
    const rows = await Promise.all(
      records.map((r) => this.redis.hGetAll(this.keys.lastMetrics(r.company as string, namespace, r.id as string))),
    );
    return records.map((r, i) => {
      const lm = rows[i] ?? {};
      if (Object.keys(lm).length === 0) return r;
      return Object.freeze({ ...r, last_metrics: decodeLastMetrics(lm) });
    });
  }
}
