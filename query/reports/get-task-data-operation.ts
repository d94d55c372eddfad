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

const isHidden = (record: StoredRecord) => Array.isArray(record.system_tags) && record.system_tags.includes('hidden');

export function getTaskDataOperation(rc: ReportsContext) {
  let taskRecords: TaskRecords | undefined;
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
      const projects = () => rc.projectSnapshots.projects(companies);
      taskRecords ??= new TaskRecords(rc.deps.redis, rc.keys);
      const early = readsLastMetrics(request);
      const [loaded, projectRecords] = await Promise.all([
        taskRecords.load(kind, companies, request, early),
        query.projectScope ? projects() : Promise.resolve(undefined),
      ]);
      const candidates = query.excludeHidden ? loaded.filter((r) => !isHidden(r)) : loaded;
      const sorted = query.select(candidates, projectRecords);
      const page = await pickPage(query, sorted, rc.scrolls, who.company);
      const records = early ? page.records : await taskRecords.withLastMetrics(kind, page.records);
      const [tasks, eventSections] = await Promise.all([
        renderPage(query, request, records, projects, rc.directory),
        computeSections(rc.deps, who.company, sections, records),
      ]);
      return { tasks, ...(page.scrollId === undefined ? {} : { scroll_id: page.scrollId }), ...eventSections };
    },
  });
}
