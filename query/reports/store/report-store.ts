/**
 * Report record writes (reports.md §3.1-§3.7) over the Lua scripts of
 * report-scripts.ts. Validation of request fields happens before; the
 * checks that depend on stored state happen atomically inside the scripts.
 */
import { sortedByCodePoints } from '../../../shared/events/domain/code-point-order.js';
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { ReportKeys } from './report-keys.js';
import { ARCHIVE, CREATE, DELETE, LOCK_FOR_DELETE, MOVE, PUBLISH, UNLOCK, UPDATE } from './report-scripts.js';
import { scriptError, type ScriptReply } from './script-errors.js';
import type { LuaScript } from './lua-script.js';

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

/** Raised when the target project vanished between its resolution and the write (an emptied project removed). */
export class ProjectVanished extends Error {}

export class ReportStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
  ) {}

  private async run(script: LuaScript, company: string, id: string, rest: string[], name?: string): Promise<ScriptReply> {
    const reply = (await script.run(this.redis, [this.keys.prefix, company, id, ...rest])) as ScriptReply;
    if (reply[0] === 'err' && reply[1] === 'no_project') throw new ProjectVanished();
    if (reply[0] !== 'ok') throw scriptError(reply, { id, company, name });
    return reply;
  }

  /** §2.1 without changing anything (update with nothing to change). */
  async requireReport(company: string, id: string): Promise<void> {
    const [owner, type] = await this.redis.hmGet(this.keys.task(id), ['company', 'type']);
    const reply: ScriptReply | undefined =
      owner === null || owner === undefined || (owner !== company && owner !== '')
        ? ['err', 'invalid']
        : owner === ''
          ? ['err', 'public']
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
      'id', report.id, 'name', report.name, 'type', 'report', 'status', 'created', 'company', company, 'user', user,
      'project', report.project, 'tags', JSON.stringify(report.tags), 'report_assets', JSON.stringify(report.report_assets),
      'system_tags', '["hidden","reports"]', 'created', t, 'last_update', t, 'last_change', t, 'last_changed_by', user,
    ];
    if (report.comment !== undefined) fields.push('comment', report.comment);
    if (report.report !== undefined) fields.push('report', report.report);
    await this.run(CREATE, company, report.id, [report.name, report.project, JSON.stringify(report.tags), ...fields], report.name);
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
        ...json(changes.tags),
        ...text(changes.comment),
        ...text(changes.report),
        ...json(changes.report_assets),
      ],
      changes.name,
    );
  }

  async publish(company: string, user: string, now: number, id: string, message: string): Promise<void> {
    await this.run(PUBLISH, company, id, [String(now), user, message]);
  }

  async setArchived(company: string, user: string, now: number, id: string, message: string, archived: boolean): Promise<void> {
    await this.run(ARCHIVE, company, id, [String(now), user, message, archived ? 'add' : 'remove']);
  }

  /** Puts the report into `project`; answers the project it left ("" when none). */
  async move(company: string, user: string, now: number, id: string, project: string): Promise<string> {
    const reply = await this.run(MOVE, company, id, [project, String(now), user]);
    return reply[1] ?? '';
  }

  async lockForDelete(company: string, id: string, force: boolean): Promise<void> {
    await this.run(LOCK_FOR_DELETE, company, id, [force ? '1' : '0']);
  }

  async unlock(company: string, id: string): Promise<void> {
    await UNLOCK.run(this.redis, [this.keys.prefix, company, id]);
  }

  /** Removes the record and its index entries; answers its project id. */
  async remove(company: string, id: string): Promise<string> {
    const reply = await this.run(DELETE, company, id, []);
    return reply[1] ?? '';
  }

  /** Distinct user tags of the company's reports (§3.8). */
  async tags(company: string): Promise<string[]> {
    const counts = await this.redis.hGetAll(this.keys.reportTags(company));
    return sortedByCodePoints(Object.entries(counts).filter(([, n]) => Number(n) > 0).map(([tag]) => tag));
  }
}
