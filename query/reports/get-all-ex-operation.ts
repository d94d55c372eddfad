/**
 * reports.get_all_ex (reports.md §3.9): the query language over the cached
 * report records of the caller company (and public ones), the `.reports`
 * project selection (with project ids known by their alias,
 * aliased-project-selection.ts), paging or scrolling, projection. A query
 * repeated over unchanged records reuses its selection (selection-memo.ts).
 */
import { z } from 'zod';
import { defineOperation } from '../../shared/protocol/operation.js';
import { withAliasedProjects } from './aliased-project-selection.js';
import { compileQuery } from './query-language/compile-query.js';
import { pickPage, renderPage } from './result-page.js';
import { caller } from './report-write-operations.js';
import { ReportsContext } from './reports-context.js';
import { joinLists } from './store/joined-lists.js';

export function getAllExOperation(rc: ReportsContext) {
  return defineOperation({
    name: 'reports.get_all_ex',
    minVersion: '1.0',
    request: z.record(z.string(), z.unknown()),
    async handle(received, context) {
      let query = compileQuery(received, 'report');
      const who = await caller(rc, context);
      const companies = ReportsContext.scope(who.company, query.allowPublic);
      const projects = () => rc.projectSnapshots.projects(companies);
      const request = query.projectScope
        ? await withAliasedProjects(received, who.company, projects, rc.aliases)
        : received;
      if (request !== received) query = compileQuery(request, 'report');
      const [parts, projectRecords] = await Promise.all([
        Promise.all(companies.map((c) => rc.snapshots.reports(c))),
        query.projectScope ? projects() : Promise.resolve(undefined),
      ]);
      const inputs = projectRecords === undefined ? parts : [...parts, projectRecords];
      const sorted = rc.selections.select(request, companies, inputs, () =>
        query.select(joinLists(parts), projectRecords),
      );
      const page = await pickPage(query, sorted, rc.scrolls, who.company);
      const tasks = await renderPage(query, request, page.records, projects, rc.directory);
      return page.scrollId === undefined ? { tasks } : { tasks, scroll_id: page.scrollId };
    },
  });
}
