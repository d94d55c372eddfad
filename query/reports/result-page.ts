/**
 * The part of get_all_ex and get_task_data after selection: the page the
 * paging mode picks (§4.9, with the scroll state in Redis) and the records'
 * response form with reference sub-fields resolved (§1.2, §4.10).
 */
import {
  scrollWindow,
  type CompiledQuery,
  type ReferenceResolver,
  type StoredRecord,
} from './query-language/compile-query.js';
import type { IdentityDirectory } from './identity-directory.js';
import type { ScrollStates } from './scroll-states.js';
import type { ProjectRecord } from './store/project-snapshots.js';

export interface Page {
  records: StoredRecord[];
  scrollId?: string;
}

export async function pickPage(
  query: CompiledQuery,
  sorted: readonly StoredRecord[],
  scrolls: ScrollStates,
  company: string,
): Promise<Page> {
  const paging = query.paging;
  if (paging.mode !== 'scroll') return { records: sorted.slice(paging.offset, paging.offset + paging.limit) };
  const state = await scrolls.open(company, paging.scrollId);
  const window = scrollWindow(state.position, paging.size, paging.refresh);
  const records = sorted.slice(window.offset, window.offset + window.limit);
  state.position = window.nextPosition(records.length);
  await scrolls.save(company, state);
  return { records, scrollId: state.id };
}

/** Whether only_fields asks for sub-fields of a reference (then the referenced records are looked up). */
function wantsReference(onlyFields: unknown, field: string): boolean {
  return Array.isArray(onlyFields) && onlyFields.some((f) => typeof f === 'string' && f.startsWith(`${field}.`));
}

/** The page in response form. `projects` gives project records by id (loaded only when asked for). */
export async function renderPage(
  query: CompiledQuery,
  request: Record<string, unknown>,
  records: readonly StoredRecord[],
  projects: () => Promise<readonly ProjectRecord[]>,
  directory: IdentityDirectory,
): Promise<Record<string, unknown>[]> {
  const onlyFields = request.only_fields;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const [projectList, names] = await Promise.all([
    wantsReference(onlyFields, 'project') && records.length > 0 ? projects() : Promise.resolve([]),
    (wantsReference(onlyFields, 'user') || wantsReference(onlyFields, 'company')) && records.length > 0
      ? directory.names(
          records.map((r) => str(r.user)),
          records.map((r) => str(r.company)),
        )
      : Promise.resolve({ users: new Map<string, string>(), companies: new Map<string, string>() }),
  ]);
  const projectById = new Map(projectList.map((p) => [p.id, p]));
  const resolve: ReferenceResolver = (kind, id) => {
    if (kind === 'project') return projectById.get(id);
    const name = (kind === 'user' ? names.users : names.companies).get(id);
    return name === undefined ? undefined : { name };
  };
  return records.map((r) => query.project(r, resolve));
}
