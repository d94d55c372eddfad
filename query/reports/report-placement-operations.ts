/**
 * reports.move, reports.delete and reports.get_tags (reports.md §3.6-§3.8).
 * Delete also deletes the report's events through the writer, synchronously
 * (events.md §9.1 guarantees), while the report is locked for event writes.
 */
import { z } from 'zod';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { defineOperation } from '../../shared/protocol/operation.js';
import { bool, documented, requestSchema, str } from '../../shared/protocol/request-fields.js';
import { controlId, sendControl } from '../events/store/control-requests.js';
import { nullableString, projectMember } from './report-fields.js';
import { projectIdBase, rememberAlias, type ProjectBase } from './report-project-base.js';
import { caller, intoReportsProject } from './report-write-operations.js';
import type { ReportsContext } from './reports-context.js';

/**
 * `project` counts by presence, even as null (the reports root), so it is
 * read as sent: an absent optional member stays absent in zod's output.
 */
const moveRequest = documented(
  requestSchema({
    task: str({ required: true }),
    project_name: str(),
    /** The web UI's spelling of project_name. */
    projectName: str(),
    project: projectMember,
  }),
  { json: { anyOf: [{ required: ['project_name'] }, { required: ['projectName'] }, { required: ['project'] }] } },
);

export function moveOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.move',
    minVersion: '1.0',
    request: moveRequest,
    async handle(request, context) {
      const hasProject = Object.hasOwn(request, 'project');
      const project = nullableString(request.project);
      const projectName = request.project_name ?? request.projectName;
      if (!hasProject && !projectName) {
        throw apiError('missing_required_fields', 'project or project_name is required');
      }
      const who = await caller(rc, context);
      await rc.reports.requireReport(who.company, request.task);
      // §3.6: project_name wins; an id unknown here that comes with it is remembered for that name (decision 12).
      const found: ProjectBase = projectName
        ? {
            base: projectName,
            ...(project && !(await rc.projects.exists(who.company, project)) ? { alias: project } : {}),
          }
        : project
          ? await projectIdBase(rc, who.company, project)
          : { base: '' };
      const now = Date.now();
      const [target, previous] = await intoReportsProject(rc, who, now, found.base, async (projectId) => [
        projectId,
        await rc.reports.move(who.company, who.user, now, request.task, projectId),
      ]);
      await rememberAlias(rc, who.company, found);
      if (previous !== target) await rc.projects.removeIfEmpty(who.company, previous);
      return { project_id: target };
    },
  });
}

export function deleteOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.delete',
    minVersion: '1.0',
    request: requestSchema({ task: str({ required: true }), force: bool({ default: false }) }),
    async handle(request, context) {
      const who = await caller(rc, context);
      const id = request.task;
      await rc.reports.lockForDelete(who.company, id, request.force);
      try {
        await sendControl(rc.deps, { op: 'delete_entity', c: who.company, n: 't', e: id, id: controlId() });
      } catch (error) {
        await rc.reports.unlock(who.company, id).catch(() => undefined);
        throw error;
      }
      const project = await rc.reports.remove(who.company, id);
      await rc.projects.removeIfEmpty(who.company, project);
      return { deleted: 1 };
    },
  });
}

export function getTagsOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.get_tags',
    minVersion: '1.0',
    request: z.record(z.string(), z.unknown()),
    async handle(_request, context) {
      const who = await caller(rc, context);
      return { tags: await rc.reports.tags(who.company) };
    },
  });
}
