/**
 * Project records (reports.md §1.3): lookup by id for create/move, the
 * reports-project resolution, and removal of emptied `.reports` projects.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import { codePointLength, prefixNames, reportsProjectSegments } from './project-path.js';
import { REMOVE_IF_EMPTY, RESOLVE_PROJECT } from './project-scripts.js';
import type { ReportKeys } from './report-keys.js';
import { invalidProjectId, publicProjectForbidden, scriptError, type ScriptReply } from './script-errors.js';

export const newId = () => randomUUID().replace(/-/g, '');

export interface ProjectRef {
  id: string;
  name: string;
  company: string;
}

export class ProjectStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
  ) {}

  /** A project the caller may put reports into: 400/401 when unknown to the company, 403/21 when public. */
  async requireWritable(company: string, id: string): Promise<ProjectRef> {
    const [owner, name] = await this.redis.hmGet(this.keys.project(id), ['company', 'name']);
    if (owner === null || owner === undefined || (owner !== company && owner !== '')) throw invalidProjectId(id);
    if (owner === '') throw publicProjectForbidden(id);
    return { id, name: name ?? '', company: owner };
  }

  /** The id of the reports project for `base` (§1.3), created with its ancestors when missing. */
  async resolveReportsProject(company: string, user: string, now: number, base: string): Promise<string> {
    const segments = reportsProjectSegments(base);
    const names = prefixNames(segments);
    const args = [this.keys.prefix, company, user, String(now), String(segments.length)];
    args.push(...names, ...segments, ...names.map((n) => (codePointLength(n) < 3 ? '1' : '0')), ...names.map(() => newId()));
    const reply = (await RESOLVE_PROJECT.run(this.redis, args)) as ScriptReply;
    if (reply[0] !== 'ok') throw scriptError(reply, { company });
    return reply[1]!;
  }

  /** Removes the project when it is a `.reports` project that no task references any more. */
  async removeIfEmpty(id: string): Promise<boolean> {
    if (id === '') return false;
    return Number(await REMOVE_IF_EMPTY.run(this.redis, [this.keys.prefix, id])) === 1;
  }

  /** Every project hash of a company. */
  async loadCompanyProjects(company: string): Promise<Array<Record<string, string>>> {
    const ids = await this.redis.hVals(this.keys.projectNames(company));
    if (ids.length === 0) return [];
    const multi = this.redis.multi();
    for (const id of ids) multi.hGetAll(this.keys.project(id));
    return (await multi.exec()) as unknown as Array<Record<string, string>>;
  }
}
