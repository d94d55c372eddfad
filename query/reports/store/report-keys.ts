/**
 * Redis layout of reports, projects and their per-company indexes
 * (docs/reports.md has the whole picture), under the one key layout of
 * shared/stores/redis-keys.ts. Report records share the task hash and the
 * company task index with the events pipeline
 * (shared/entities/entity-registry.ts), because a report is a task.
 */
import { reportChangeLogKeys } from '../../../shared/entities/report-change-log.js';
import { redisKeys } from '../../../shared/stores/redis-keys.js';

export function reportKeys(prefix: string) {
  const shared = redisKeys(prefix);
  const co = shared.company;
  return {
    prefix,
    task: shared.task,
    model: shared.model,
    entity: shared.entity,
    /** String: the company owning a task or model id (shared/entities/entity-registry.ts). */
    owner: shared.owner,
    lastMetrics: shared.lastMetrics,
    metricListing: shared.metricListing,
    /** Set: every task id of a company (implicit tasks and reports). */
    companyTasks: (company: string) => shared.companyEntities(company, 't'),
    companyModels: (company: string) => shared.companyEntities(company, 'm'),
    /** Set: report ids of a company. */
    reports: (company: string) => `${co(company)}:reports`,
    /** Hash: report name -> id (uniqueness, §2.2). */
    reportNames: (company: string) => `${co(company)}:report_names`,
    /** Hash: user tag -> number of occurrences over the company's reports (get_tags). */
    reportTags: (company: string) => `${co(company)}:report_tags`,
    /** The change log the read cache follows (report writes and event writes to reports). */
    ...reportChangeLogKeys(prefix),
    /** Hash: the project record. */
    project: shared.project,
    /** Set: ids of the task records that reference the project. */
    projectTasks: shared.projectTasks,
    /** Hash: full project name -> id. */
    projectNames: (company: string) => `${co(company)}:project_names`,
    /** Hash: project id unknown here (a ClearML server's) -> the project name reports given that id went under. */
    projectAliases: (company: string) => `${co(company)}:project_aliases`,
    /** Counter: bumped by every project write of the company. */
    projectVersion: (company: string) => `${co(company)}:pv`,
    userNames: shared.userNames,
    companyNames: shared.companyNames,
    /** String: a get_all_ex / get_task_data scroll state of the company. */
    scroll: shared.reportScroll,
  };
}

export type ReportKeys = ReturnType<typeof reportKeys>;
