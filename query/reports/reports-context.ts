/**
 * What the reports operations share within one process: the stores and the
 * read caches. Built on first use, because the Redis client exists only
 * after the store components started.
 */
import type { QueryDeps } from '../query-deps.js';
import { IdentityDirectory } from './identity-directory.js';
import { ScrollStates } from './scroll-states.js';
import { SelectionMemo } from './selection-memo.js';
import { ProjectAliases } from './store/project-aliases.js';
import { ProjectSnapshots } from './store/project-snapshots.js';
import { ProjectStore } from './store/project-store.js';
import { reportKeys, type ReportKeys } from './store/report-keys.js';
import { ReportSnapshots } from './store/report-snapshots.js';
import { ReportStore } from './store/report-store.js';

export class ReportsContext {
  readonly keys: ReportKeys;
  readonly directory: IdentityDirectory;
  readonly scrolls: ScrollStates;
  readonly selections = new SelectionMemo();
  private parts?: {
    reports: ReportStore;
    projects: ProjectStore;
    aliases: ProjectAliases;
    snapshots: ReportSnapshots;
    projectSnapshots: ProjectSnapshots;
  };

  constructor(readonly deps: QueryDeps) {
    this.keys = reportKeys(deps.keyPrefix);
    this.directory = new IdentityDirectory(() => deps.redis, deps.keyPrefix);
    this.scrolls = new ScrollStates(() => deps.redis, this.keys);
  }

  private get built() {
    if (this.parts === undefined) {
      const redis = this.deps.redis;
      const projects = new ProjectStore(redis, this.keys);
      this.parts = {
        reports: new ReportStore(redis, this.keys),
        projects,
        aliases: new ProjectAliases(redis, this.keys),
        snapshots: new ReportSnapshots(redis, this.keys),
        projectSnapshots: new ProjectSnapshots(redis, this.keys, projects),
      };
    }
    return this.parts;
  }

  get reports(): ReportStore {
    return this.built.reports;
  }

  get projects(): ProjectStore {
    return this.built.projects;
  }

  get aliases(): ProjectAliases {
    return this.built.aliases;
  }

  get snapshots(): ReportSnapshots {
    return this.built.snapshots;
  }

  get projectSnapshots(): ProjectSnapshots {
    return this.built.projectSnapshots;
  }

  /** The companies whose records a read sees: the caller's, plus public ones when allowed. */
  static scope(company: string, allowPublic: boolean): string[] {
    return allowPublic && company !== '' ? [company, ''] : [company];
  }
}
