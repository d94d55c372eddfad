/**
 * Which of some task ids are reports this service created (reports.create)
 * in a company: in companion mode they are the only tasks that exist here
 * and not in the ClearML server. One SMISMEMBER on the company's report
 * index (docs/reports.md, "Storage layout").
 */
import { redisKeys } from '../stores/redis-keys.js';
import type { RedisClient } from '../stores/redis-store.js';

export function localReportsOf(redis: () => RedisClient, prefix: string) {
  const keys = redisKeys(prefix);
  return async (company: string, ids: readonly string[]): Promise<ReadonlySet<string>> => {
    if (ids.length === 0) return new Set();
    const member = await redis().smIsMember(`${keys.company(company)}:reports`, [...ids]);
    return new Set(ids.filter((_, i) => Boolean(member[i])));
  };
}
