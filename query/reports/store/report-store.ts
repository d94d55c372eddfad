/**
 * Report record writes (reports.md §3.1-§3.7) over the Lua scripts of
 * report-scripts.ts. Validation of request fields happens before; the
 * checks that depend on stored state happen atomically inside the scripts.
 */
import { sortedByCodePoints } from '../../events/common/code-point-order.js';
import { EntityRegistry } from '../../../shared/entities/entity-registry.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { ReportKeys } from './report-keys.js';
import {
  ARCHIVE,
  CREATE,
  DELETE,
  LOCK_FOR_DELETE,
  MOVE,
  PUBLISH,
  REPORT_SCRIPT_KEYS,
  UNLOCK,
  UPDATE,
} from './report-scripts.js';
import { scriptError, type ScriptReply } from './script-errors.js';
import type { LuaScript } from '../../../shared/stores/lua-script.js';

export interface NewReport {
  id: string;
  name: string;
  project: string;
  comment?: string;
  report?: string;
  tags: string[];
  report_assets: string[];
}

/** The updatable fields of §3.2 present with a non-null value. */
export interface ReportChanges {
  name?: string;
  tags?: string[];
  comment?: string;
  report?: string;
  report_assets?: string[];
}

/** Calls again when a record keeps changing its project under a script (practically never more than once). */
const MAX_ATTEMPTS = 5;

/** Raised when the target project vanished between its resolution and the write (an emptied project removed). */
export class ProjectVanished extends Error {}

export class ReportStore {
  private readonly owners: EntityRegistry;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
  ) {
    this.owners = new EntityRegistry(redis, keys.prefix);
  }

  /**
   * Runs a report script with every key it may touch. The record's project
   * is read first (its keys are among them); the script answers 'retry'
   * when the record changed project meanwhile.
   */
  private async run(
    script: LuaScript,
    company: string,
    id: string,
    rest: string[],
    options: { name?: string; target?: string; creating?: boolean } = {},
  ): Promise<ScriptReply> {
    for (let attempt = 0; ; attempt++) {
      const current = options.creating ? '' : await this.currentProject(company, id);
      const keys = this.scriptKeys(company, id, current, options.target ?? '');
      const reply = (await script.run(this.redis, keys, [company, id, current, ...rest])) as ScriptReply;
      if (reply[0] === 'err' && reply[1] === 'retry' && attempt < MAX_ATTEMPTS) continue;
      if (reply[0] === 'err' && reply[1] === 'no_project') throw new ProjectVanished();
      if (reply[0] !== 'ok') throw scriptError(reply, { id, company, name: options.name });
      return reply;
    }
  }

  /** The project of the company's record; a missing record answers §2.1's error (public or unknown) at once. */
  private async currentProject(company: string, id: string): Promise<string> {
    const [owner, project] = await this.redis.hmGet(this.keys.task(company, id), ['company', 'project']);
    if (owner === null || owner === undefined) throw scriptError(await this.missing(company, id), { id, company });
    return project ?? '';
  }

  /** Why `company` holds no record of `id`: a public task (read-only) or one unknown to it. */
  private async missing(company: string, id: string): Promise<ScriptReply> {
    const isPublic = company !== '' && (await this.redis.exists(this.keys.task('', id))) === 1;
    return ['err', isPublic ? 'public' : 'invalid'];
  }

  private scriptKeys(company: string, id: string, project: string, target: string): string[] {
    const k = this.keys;
    const byName: Record<(typeof REPORT_SCRIPT_KEYS)[number], string> = {
      record: k.task(company, id),
      reports: k.reports(company),
      tasks: k.companyTasks(company),
      reportNames: k.reportNames(company),
      reportTags: k.reportTags(company),
      reportVersion: k.reportVersion(company),
      reportChanges: k.reportChanges(company),
      reportChangesFloor: k.reportChangesFloor(company),
      projectVersion: k.projectVersion(company),
      currentProject: k.project(company, project),
      currentProjectTasks: k.projectTasks(company, project),
      targetProject: k.project(company, target),
      targetProjectTasks: k.projectTasks(company, target),
      lastMetrics: k.lastMetrics(company, 't', id),
      metricListing: k.metricListing(company, 't', id),
    };
    return REPORT_SCRIPT_KEYS.map((name) => byName[name]);
  }

  /** §2.1 without changing anything (update with nothing to change). */
  async requireReport(company: string, id: string): Promise<void> {
    const [owner, type] = await this.redis.hmGet(this.keys.task(company, id), ['company', 'type']);
    const reply: ScriptReply | undefined =
      owner === null || owner === undefined
        ? await this.missing(company, id)
        : type !== 'report'
          ? ['err', 'not_report']
          : undefined;
    if (reply) throw scriptError(reply, { id, company });
  }

  async nameTaken(company: string, name: string): Promise<boolean> {
    return (await this.redis.hExists(this.keys.reportNames(company), name)) === 1;
  }

  async create(company: string, user: string, now: number, report: NewReport): Promise<void> {
    const t = String(now);
    const fields: string[] = [
      'id',
      report.id,
      'name',
      report.name,
      'type',
      'report',
      'status',
      'created',
      'company',
      company,
      'user',
      user,
      'project',
      report.project,
      'tags',
      tagsJson(report.tags),
      'report_assets',
      JSON.stringify(report.report_assets),
      'system_tags',
      '["hidden","reports"]',
      'created',
      t,
      'last_update',
      t,
      'last_change',
      t,
      'last_changed_by',
      user,
    ];
    if (report.comment !== undefined) fields.push('comment', report.comment);
    if (report.report !== undefined) fields.push('report', report.report);
    // Ids are global (events.md §1.10): the fresh id becomes the company's before its record exists.
    if (!(await this.owners.claim(company, 't', report.id)))
      throw new Error(`report id ${report.id} is owned by another company`);
    try {
      await this.run(CREATE, company, report.id, [report.name, tagsJson(report.tags), ...fields], {
        name: report.name,
        target: report.project,
        creating: true,
      });
    } catch (error) {
      // Refused (a taken name, a vanished project): the fresh id must not stay owned without a record.
      await this.owners.release(company, 't', report.id);
      throw error;
    }
  }

  async update(company: string, user: string, now: number, id: string, changes: ReportChanges): Promise<void> {
    const text = (v?: string) => (v === undefined ? ['0', ''] : ['1', v]);
    const json = (v?: unknown) => (v === undefined ? ['0', ''] : ['1', JSON.stringify(v)]);
    await this.run(
      UPDATE,
      company,
      id,
      [
        String(now),
        user,
        ...text(changes.name),
        ...text(changes.tags && tagsJson(changes.tags)),
        ...text(changes.comment),
        ...text(changes.report),
        ...json(changes.report_assets),
      ],
      { name: changes.name },
    );
  }

  async publish(company: string, user: string, now: number, id: string, message: string): Promise<void> {
    await this.run(PUBLISH, company, id, [String(now), user, message]);
  }

  async setArchived(
    company: string,
    user: string,
    now: number,
    id: string,
    message: string,
    archived: boolean,
  ): Promise<void> {
    await this.run(ARCHIVE, company, id, [String(now), user, message, archived ? 'add' : 'remove']);
  }

  /** Puts the report into `project`; answers the project it left ("" when none). */
  async move(company: string, user: string, now: number, id: string, project: string): Promise<string> {
    const reply = await this.run(MOVE, company, id, [project, String(now), user], { target: project });
    return reply[1] ?? '';
  }

  async lockForDelete(company: string, id: string, force: boolean): Promise<void> {
    await this.run(LOCK_FOR_DELETE, company, id, [force ? '1' : '0']);
  }

  async unlock(company: string, id: string): Promise<void> {
    await UNLOCK.run(this.redis, [this.keys.task(company, id)], []);
  }

  /** Removes the record and its index entries; answers its project id. */
  async remove(company: string, id: string): Promise<string> {
    const reply = await this.run(DELETE, company, id, []);
    await this.owners.release(company, 't', id);
    return reply[1] ?? '';
  }

  /** Distinct user tags of the company's reports (§3.8). */
  async tags(company: string): Promise<string[]> {
    const counts = await this.redis.hGetAll(this.keys.reportTags(company));
    return sortedByCodePoints(
      Object.entries(counts)
        .filter(([, n]) => Number(n) > 0)
        .map(([tag]) => tag),
    );
  }
}

/**
 * Tags as the JSON the report scripts decode (cjson). A lone surrogate is no text: JSON.stringify
 * writes it as a `\ud800` escape, which cjson refuses, and Redis would store it as UTF-8 does, U+FFFD;
 * so it becomes U+FFFD here, as in every other field of the record.
 */
function tagsJson(tags: readonly string[]): string {
  return JSON.stringify(tags.map((tag) => (tag as string & { toWellFormed(): string }).toWellFormed()));
}
