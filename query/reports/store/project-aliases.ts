/**
 * Project ids that name no project here, remembered per company with the
 * name of the project their reports went under (docs/reports.md, decision
 * 12). Beside a ClearML server the web UI names projects by the ClearML
 * server's ids: it creates a report with one and lists a project's reports
 * with the same id, so the id must find that project again. The first name
 * an id was given stays (HSETNX): a project renamed in the ClearML server
 * keeps its reports together under the first name.
 */
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { ReportKeys } from './report-keys.js';

export class ProjectAliases {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
  ) {}

  async nameOf(company: string, id: string): Promise<string | undefined> {
    return (await this.redis.hGet(this.keys.projectAliases(company), id)) ?? undefined;
  }

  /** The remembered names of those `ids` that have one. */
  async namesOf(company: string, ids: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (ids.length === 0) return found;
    const names = await this.redis.hmGet(this.keys.projectAliases(company), [...ids]);
    ids.forEach((id, i) => {
      const name = names[i];
      if (typeof name === 'string') found.set(id, name);
    });
    return found;
  }

  async remember(company: string, id: string, name: string): Promise<void> {
    await this.redis.hSetNX(this.keys.projectAliases(company), id, name);
  }
}
