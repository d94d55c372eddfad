/**
 * The change log of a company's report records, which the reports read
 * cache follows (query/reports/store/report-snapshots.ts): a version counter
 * and a sorted set id -> version of the id's latest change. Both writers of
 * report records log here, in the same script as the change: the report
 * scripts (query/reports/store/report-scripts.ts) and the events writer's
 * summary script for the fields events maintain on a report
 * (ingest/writer/summary-applier.ts). So one version read tells a reader
 * whether anything of the company's reports moved, events included.
 */
import { redisKeys } from '../stores/redis-keys.js';

/** Versions kept in the change log; a cache older than that reloads the company. */
export const CHANGE_LOG_SPAN = 50_000;

export function reportChangeLogKeys(prefix: string) {
  const co = redisKeys(prefix).company;
  return {
    /** Counter: bumped by every change of a report record of the company. */
    reportVersion: (company: string) => `${co(company)}:rv`,
    /** Sorted set: report id -> version of its latest change (incremental cache refresh). */
    reportChanges: (company: string) => `${co(company)}:rchg`,
    /** String: versions at or below it were trimmed from reportChanges. */
    reportChangesFloor: (company: string) => `${co(company)}:rfloor`,
  };
}

/**
 * Lua: `logReportChange(rv, rchg, rfloor, id)` bumps the version, records
 * the id at it and trims the log every 1,000 versions. Keys in the
 * company's slot, passed in KEYS by the caller.
 */
export const LOG_REPORT_CHANGE_LUA = `
local function logReportChange(rv, rchg, rfloor, id)
  local v = redis.call('INCR', rv)
  redis.call('ZADD', rchg, v, id)
  if v % 1000 == 0 and v > ${CHANGE_LOG_SPAN} then
    redis.call('ZREMRANGEBYSCORE', rchg, '-inf', v - ${CHANGE_LOG_SPAN})
    redis.call('SET', rfloor, v - ${CHANGE_LOG_SPAN})
  end
end
`;
