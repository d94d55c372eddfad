/**
 * Redis layout of reports, projects and their per-company indexes
 * (docs/reports.md has the whole picture). Report records share the task
 * hash and the company task index with the events pipeline
 * (shared/entities/entity-registry.ts), because a report is a task.
 */
import { companyIndexKey } from '../../../shared/entities/entity-registry.js';
import { redisKeys } from '../../../shared/events/storage-layout.js';

export function reportKeys(prefix: string) {
  const co = (company: string) => `${prefix}:co:${company}`;
  const shared = redisKeys(prefix);
  return {
    prefix,
    task: shared.task,
    model: shared.model,
    entity: shared.entity,
    lastMetrics: shared.lastMetrics,
    /** Set: every task id of a company (implicit tasks and reports). */
    companyTasks: (company: string) => companyIndexKey(prefix, company, 't'),
    companyModels: (company: string) => companyIndexKey(prefix, company, 'm'),
    /** Set: report ids of a company. */
    reports: (company: string) => `${co(company)}:reports`,
    /** Hash: report name -> id (uniqueness, §2.2). */
    reportNames: (company: string) => `${co(company)}:report_names`,
    /** Hash: user tag -> number of occurrences over the company's reports (get_tags). */
    reportTags: (company: string) => `${co(company)}:report_tags`,
    /** Counter: bumped by every report write of the company (cache validation). */
    reportVersion: (company: string) => `${co(company)}:rv`,
    /** Sorted set: report id -> version of its latest write (incremental cache refresh). */
    reportChanges: (company: string) => `${co(company)}:rchg`,
    /** String: versions at or below it were trimmed from reportChanges. */
    reportChangesFloor: (company: string) => `${co(company)}:rfloor`,
    /** Hash: the project record. */
    project: (id: string) => `${prefix}:project:${id}`,
    /** Set: ids of the task records that reference the project. */
    projectTasks: (id: string) => `${prefix}:project:${id}:tasks`,
    /** Hash: full project name -> id. */
    projectNames: (company: string) => `${co(company)}:project_names`,
    /** Counter: bumped by every project write of the company. */
    projectVersion: (company: string) => `${co(company)}:pv`,
    /** Hashes: display names remembered from identities (protocol.md §7.1). */
    userNames: `${prefix}:names:users`,
    companyNames: `${prefix}:names:companies`,
    /** String: a get_all_ex / get_task_data scroll state. */
    scroll: (id: string) => `${prefix}:rscroll:${id}`,
  };
}

export type ReportKeys = ReturnType<typeof reportKeys>;
