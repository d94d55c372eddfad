/**
 * reports.create, update, publish, archive and unarchive (reports.md §3.1-
 * §3.5). Writes go straight to the record store before the answer
 * (read-after-write, §2.4); the atomic parts live in the Lua scripts.
 */
import { sortedByCodePoints } from '../events/common/code-point-order.js';
import { defineOperation, type CallContext } from '../../shared/protocol/operation.js';
import { requestSchema, str, strList, type FieldBuilder } from '../../shared/protocol/request-fields.js';
import { z } from 'zod';
import {
  abbreviateReport,
  clientMessage,
  dateTime,
  nullableString,
  projectMember,
  reportName,
} from './report-fields.js';
import type { ReportsContext } from './reports-context.js';
import { projectIdBase, rememberAlias, type ProjectBase } from './report-project-base.js';
import { newId } from './store/project-store.js';
import { ProjectVanished, type ReportChanges } from './store/report-store.js';
import { scriptError } from './store/script-errors.js';

/** Attempts when the target project is removed (emptied) between its resolution and the write. */
const PROJECT_ATTEMPTS = 5;

/** Identity of the call, with its display names remembered for user.name / company.name. */
export async function caller(rc: ReportsContext, context: CallContext): Promise<{ company: string; user: string }> {
  await rc.directory.remember(context.identity);
  return { company: context.identity.company, user: context.identity.user };
}

/** Resolves the reports project for `base` and runs `write` into it, again if the project vanished meanwhile. */
export async function intoReportsProject<T>(
  rc: ReportsContext,
  who: { company: string; user: string },
  now: number,
  base: string,
  write: (projectId: string) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const projectId = await rc.projects.resolveReportsProject(who.company, who.user, now, base);
    try {
      return await write(projectId);
    } catch (error) {
      if (!(error instanceof ProjectVanished) || attempt >= PROJECT_ATTEMPTS) throw error;
    }
  }
}

export function createOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.create',
    minVersion: '1.0',
    request: requestSchema({
      name: reportName({ required: true }),
      // Read as sent: the web UI's "Projects root" is `project: null` beside `projectName: "Projects root"`.
      project: projectMember,
      // What the ClearML web UI sends beside `project` (report-project-base.ts).
      projectName: str(),
      comment: str(),
      tags: strList(),
      report: str(),
      report_assets: strList(),
    }),
    async handle(request, context) {
      const who = await caller(rc, context);
      const now = Date.now();
      const name = request.name!.trimmed;
      const project = nullableString(request.project);
      // §3.1: null or "" is the root, whatever name comes with it; only a request without `project` is placed by name.
      const found: ProjectBase = project
        ? await projectIdBase(rc, who.company, project, request.projectName)
        : { base: Object.hasOwn(request, 'project') ? '' : (request.projectName ?? '') };
      if (await rc.reports.nameTaken(who.company, name))
        throw scriptError(['err', 'exists'], { company: who.company, name });
      const id = newId();
      const projectId = await intoReportsProject(rc, who, now, found.base, async (project) => {
        await rc.reports.create(who.company, who.user, now, {
          id,
          name,
          project,
          comment: request.comment,
          report: request.report,
          tags: request.tags ?? [],
          report_assets: request.report_assets ?? [],
        });
        return project;
      });
      await rememberAlias(rc, who.company, found);
      return { id, project_id: projectId };
    },
  });
}

export function updateOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.update',
    minVersion: '1.0',
    request: requestSchema({
      task: str({ required: true }),
      name: reportName(),
      tags: strList(),
      comment: str(),
      report: str(),
      report_assets: strList(),
    }),
    async handle(request, context) {
      const who = await caller(rc, context);
      const changes: ReportChanges = {
        name: request.name?.trimmed,
        tags: request.tags,
        comment: request.comment,
        report: request.report,
        report_assets: request.report_assets,
      };
      const present = (Object.keys(changes) as (keyof ReportChanges)[]).filter((k) => changes[k] !== undefined);
      if (present.length === 0) {
        await rc.reports.requireReport(who.company, request.task);
        return { updated: 0, fields: {} };
      }
      await rc.reports.update(who.company, who.user, Date.now(), request.task, changes);
      const fields: Record<string, unknown> = {};
      for (const key of present) {
        if (key === 'name') fields.name = request.name!.raw;
        else if (key === 'tags') fields.tags = sortedByCodePoints(request.tags!);
        else if (key === 'report') fields.report = request.report === '' ? '' : abbreviateReport(request.report!);
        else fields[key] = changes[key];
      }
      return { updated: 1, fields };
    },
  });
}

/** Any value or absent: §2.3 picks the message by type instead of validating it. */
const anyValue: FieldBuilder<unknown> = () => z.unknown().optional();
const statusRequest = () => requestSchema({ task: str({ required: true }), message: anyValue, comment: anyValue });

export function publishOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.publish',
    minVersion: '1.0',
    request: statusRequest(),
    async handle(request, context) {
      const who = await caller(rc, context);
      const now = Date.now();
      const message = clientMessage(request);
      await rc.reports.publish(who.company, who.user, now, request.task, message);
      const at = dateTime(now);
      return {
        updated: 1,
        fields: {
          status: 'published',
          status_reason: '',
          status_message: message,
          status_changed: at,
          last_update: at,
          last_change: at,
          last_changed_by: who.user,
          published: at,
        },
      };
    },
  });
}

export function archiveOperation(rc: ReportsContext, archived: boolean) {
  return defineOperation({
    name: archived ? 'reports.archive' : 'reports.unarchive',
    minVersion: '1.0',
    request: statusRequest(),
    async handle(request, context) {
      const who = await caller(rc, context);
      await rc.reports.setArchived(who.company, who.user, Date.now(), request.task, clientMessage(request), archived);
      return archived ? { archived: 1 } : { unarchived: 1 };
    },
  });
}
