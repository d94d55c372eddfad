/**
 * Project records (reports.md §1.3): lookup by id for create/move, the
 * reports-project resolution, and removal of emptied `.reports` projects.
 */
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import { codePointLength, MAX_PROJECT_DEPTH, prefixNames, reportsProjectSegments } from './project-path.js';
import { REMOVE_IF_EMPTY, RESOLVE_PROJECT } from './project-scripts.js';
import type { ReportKeys } from './report-keys.js';
import { invalidProjectId, publicProjectForbidden, scriptError, type ScriptReply } from './script-errors.js';

export const newId = () => randomUUID().replace(/-/g, '');

/** Calls again when a project of the path appeared or vanished under the script (concurrent creates). */
const MAX_ATTEMPTS = 5;

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
    const [owner, name] = await this.redis.hmGet(this.keys.project(company, id), ['company', 'name']);
    if (owner === null || owner === undefined) {
      if (company !== '' && (await this.redis.exists(this.keys.project('', id))) === 1)
        throw publicProjectForbidden(id);
      throw invalidProjectId(id);
    }
    return { id, name: name ?? '', company: owner };
  }

  /** Whether `id` names a project here: the company's own or a public one. */
  async exists(company: string, id: string): Promise<boolean> {
    const keys =
      company === '' ? [this.keys.project('', id)] : [this.keys.project(company, id), this.keys.project('', id)];
    // One EXISTS per key: on a cluster the company's slot and the public one differ.
    const found = await Promise.all(keys.map((key) => this.redis.exists(key)));
    return found.some((n) => n === 1);
  }

  /**
   * The id of the reports project for `base` (§1.3), created with its
   * ancestors when missing. The ids of the existing prefixes are read first
   * so that the script gets every project key it touches; it answers
   * 'retry' when one changed meanwhile.
   */
  async resolveReportsProject(company: string, user: string, now: number, base: string): Promise<string> {
    const segments = reportsProjectSegments(base, MAX_PROJECT_DEPTH);
    // Refused before the prefixes are built: a client's path of n segments has n prefixes of up to
    // its whole length (30,000 segments of a 60 KB name: ~1.8 GB). Such a project cannot exist (the
    // script below never creates one), so the script's own check would answer the same.
    if (segments.length > MAX_PROJECT_DEPTH) throw scriptError(['err', 'depth'], { company });
    const names = prefixNames(segments);
    for (let attempt = 0; ; attempt++) {
      const [existing, publicIds] = await Promise.all([
        this.redis.hmGet(this.keys.projectNames(company), names),
        this.redis.hmGet(this.keys.projectNames(''), names),
      ]);
      const ids = names.map((_, i) => existing[i] ?? newId());
      const keys = [
        this.keys.projectNames(company),
        this.keys.projectVersion(company),
        ...ids.map((id) => this.keys.project(company, id)),
      ];
      const args = [company, user, String(now), String(segments.length)];
      args.push(
        ...names,
        ...segments,
        ...names.map((n) => (codePointLength(n) < 3 ? '1' : '0')),
        ...ids,
        ...existing.map((id) => (id ? '1' : '0')),
        ...publicIds.map((id) => (id ? '1' : '0')),
      );
      const reply = (await RESOLVE_PROJECT.run(this.redis, keys, args)) as ScriptReply;
      if (reply[0] === 'retry' && attempt < MAX_ATTEMPTS) continue;
      if (reply[0] !== 'ok') throw scriptError(reply, { company });
      return reply[1]!;
    }
  }

  /** Removes the project when it is a `.reports` project of the company that no task references any more. */
  async removeIfEmpty(company: string, id: string): Promise<boolean> {
    if (id === '') return false;
    const keys = [
      this.keys.project(company, id),
      this.keys.projectTasks(company, id),
      this.keys.projectNames(company),
      this.keys.projectVersion(company),
    ];
    return Number(await REMOVE_IF_EMPTY.run(this.redis, keys, [company, id])) === 1;
  }

  /** Every project hash of a company. */
  async loadCompanyProjects(company: string): Promise<Array<Record<string, string>>> {
    const ids = await this.redis.hVals(this.keys.projectNames(company));
    if (ids.length === 0) return [];
    const multi = this.redis.multi();
    for (const id of ids) multi.hGetAll(this.keys.project(company, id));
    return (await multi.exec()) as unknown as Array<Record<string, string>>;
  }
}
