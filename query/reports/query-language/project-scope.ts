/**
 * Project selections that need the company's project records: the reports
 * `project` selection of reports.md §3.9 (through `.reports` projects), and
 * the get_task_data `project` condition with `include_subprojects`. The
 * caller loads the projects (caller company + public) and binds them.
 */
import { listCondition, listFieldReader, listItems, type ListBuckets } from './list-condition.js';
import { invalidValueType } from './query-errors.js';
import type { StoredRecord } from './types.js';

/** The project fields a selection needs. */
export interface ProjectRecordLike {
  readonly id: string;
  readonly name?: string;
  readonly basename?: string;
  /** Parent project id; absent, null or "" at root level. */
  readonly parent?: string | null;
}

export interface BoundProjectScope {
  /** For reports: the reports-project ids S a report's `project` must be in; undefined for list conditions. */
  readonly projectIds: ReadonlySet<string> | undefined;
  /** True when nothing can match (S empty): the caller may skip loading records. */
  readonly empty: boolean;
  test(record: StoredRecord): boolean;
}

export interface ProjectScope {
  /** `report`: resolved through `.reports` projects; `list`: list condition on the record's own `project`. */
  readonly via: 'reports-projects' | 'list';
  readonly includeSubprojects: boolean;
  /** Reports: the listed ids (null = root). */
  readonly ids: readonly (string | null)[];
  bind(projects: readonly ProjectRecordLike[]): BoundProjectScope;
}

const REPORTS_BASENAME = '.reports';

function parentOf(p: ProjectRecordLike): string | null {
  return typeof p.parent === 'string' && p.parent !== '' ? p.parent : null;
}

function basenameOf(p: ProjectRecordLike): string {
  return p.basename ?? (p.name ?? '').split('/').at(-1) ?? '';
}

/** The ids plus the ids of all their descendants, any depth. */
export function withDescendants(ids: Iterable<string>, projects: readonly ProjectRecordLike[]): Set<string> {
  const children = new Map<string, string[]>();
  for (const p of projects) {
    const parent = parentOf(p);
    if (parent !== null) children.set(parent, [...(children.get(parent) ?? []), p.id]);
  }
  const out = new Set<string>();
  const pending = [...ids];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (out.has(id)) continue;
    out.add(id);
    pending.push(...(children.get(id) ?? []));
  }
  return out;
}

/** Parses the reports `project` member (present, possibly null) into a §3.9 selection. */
export function reportsProjectScope(value: unknown, includeSubprojects: boolean): ProjectScope {
  const items = listItems(value) ?? [null];
  const ids = items.map((item) => {
    if (item !== null && typeof item !== 'string') throw invalidValueType('project', item);
    return item;
  });
  return {
    via: 'reports-projects',
    includeSubprojects,
    ids,
    bind(projects) {
      const listed = ids.filter((id): id is string => id !== null);
      const wanted = includeSubprojects ? withDescendants(listed, projects) : new Set(listed);
      const root = ids.includes(null);
      const selected = new Set<string>();
      for (const p of projects) {
        if (basenameOf(p) !== REPORTS_BASENAME) continue;
        const parent = parentOf(p);
        if (wanted.has(p.id) || (parent === null ? root : wanted.has(parent))) selected.add(p.id);
      }
      return {
        projectIds: selected,
        empty: selected.size === 0,
        test: (record) => typeof record.project === 'string' && selected.has(record.project),
      };
    },
  };
}

/**
 * The task/model `project` list condition with `include_subprojects`:
 * included and excluded ids are widened with their descendants ("contains
 * all" values are kept as they are: one project cannot equal several).
 */
export function subprojectListScope(buckets: ListBuckets): ProjectScope {
  return {
    via: 'list',
    includeSubprojects: true,
    ids: [...buckets.any, ...buckets.all, ...buckets.none],
    bind(projects) {
      const widened: ListBuckets = {
        ...buckets,
        any: [...withDescendants(buckets.any, projects)],
        none: [...withDescendants(buckets.none, projects)],
      };
      const condition = listCondition(widened, listFieldReader('project'));
      return { projectIds: undefined, empty: false, test: (record) => condition.test(record) };
    },
  };
}
