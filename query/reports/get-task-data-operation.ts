/**
 * reports.get_task_data (reports.md §3.10): task (or model) records searched
 * with the query language, the hidden rule, paging, projection, and the
 * requested event sections for the records of the answer.
 */
import { z } from 'zod';
import { defineOperation } from '../../shared/protocol/operation.js';
import { compileQuery } from './query-language/compile-query.js';
import type { StoredRecord } from './query-language/types.js';
import { pickPage, renderPage } from './result-page.js';
import { caller } from './report-write-operations.js';
import { ReportsContext } from './reports-context.js';
import { computeSections, parseSections } from './task-data-sections.js';
import { readsLastMetrics, TaskRecords } from './task-records.js';
import { CompanionTaskRecords } from './companion-task-records.js';
import { withProjectReference } from './task-project-reference.js';

const isHidden = (record: StoredRecord) => Array.isArray(record.system_tags) && record.system_tags.includes('hidden');

export function getTaskDataOperation(rc: ReportsContext) {
  let taskRecords: TaskRecords | CompanionTaskRecords | undefined;
  return defineOperation({
    name: 'reports.get_task_data',
    minVersion: '1.0',
    request: z.record(z.string(), z.unknown()),
    async handle(request, context) {
      const sections = parseSections(request);
      const kind = sections.model_events ? 'model' : 'task';
      const query = compileQuery(request, kind);
      const who = await caller(rc, context);
      const companies = ReportsContext.scope(who.company, query.allowPublic);
      taskRecords ??= rc.deps.entityFacts
        ? new CompanionTaskRecords(rc.deps.redis, rc.keys, rc.deps.entityFacts)
        : new TaskRecords(rc.deps.redis, rc.keys);
      const early = readsLastMetrics(request);
      const { records: loaded, projects: clearmlProjects } =
        taskRecords instanceof CompanionTaskRecords
          ? await taskRecords.load(kind, who.company, request, early)
          : { records: await taskRecords.load(kind, companies, request, early), projects: [] };
      const projects = async () => [...(await rc.projectSnapshots.projects(companies)), ...clearmlProjects];
      const projectRecords = query.projectScope ? await projects() : undefined;
      const candidates = query.excludeHidden ? loaded.filter((r) => !isHidden(r)) : loaded;
      const sorted = query.select(candidates, projectRecords);
      const page = await pickPage(query, sorted, rc.scrolls, who.company);
      const records = early ? page.records : await taskRecords.withLastMetrics(kind, page.records);
      const [tasks, eventSections] = await Promise.all([
        renderPage(query, request, records, projects, rc.directory),
        computeSections(rc.deps, who.company, sections, records),
      ]);
      return {
        tasks: withProjectReference(tasks, request.only_fields),
        ...(page.scrollId === undefined ? {} : { scroll_id: page.scrollId }),
        ...eventSections,
      };
    },
  });
}
