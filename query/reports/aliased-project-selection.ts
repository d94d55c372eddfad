/**
 * The reports `project` selection (reports.md §3.9) with project ids that
 * name no project here but were given to reports.create / reports.move
 * (docs/reports.md, decision 12): the web UI lists a ClearML project's
 * reports by the ClearML server's id. Such an id stands for the project its
 * alias names, so the `.reports` indirection, `include_subprojects` and the
 * rest of §3.9 apply unchanged. Ids without an alias stay as given (they
 * match nothing); values that are not ids are left for the query compiler to
 * refuse.
 */
import type { ProjectRecord } from './store/project-snapshots.js';
import type { ProjectAliases } from './store/project-aliases.js';
import { reportsProjectSegments } from './store/project-path.js';

type Request = Record<string, unknown>;

/** `request` with aliased ids in `project` replaced by the ids of the projects they stand for. */
export async function withAliasedProjects(
  request: Request,
  company: string,
  projects: () => Promise<readonly ProjectRecord[]>,
  aliases: ProjectAliases,
): Promise<Request> {
  const value = request.project;
  const items = Array.isArray(value) ? value : [value];
  const ids = items.filter((item): item is string => typeof item === 'string' && item !== '');
  if (ids.length === 0) return request;
  const records = await projects();
  const known = new Set(records.map((p) => p.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length === 0) return request;
  const names = await aliases.namesOf(company, unknown);
  if (names.size === 0) return request;
  const byName = new Map(records.filter((p) => p.company === company).map((p) => [p.name, p.id]));
  const local = (id: unknown): unknown => {
    const name = typeof id === 'string' ? names.get(id) : undefined;
    if (name === undefined) return id;
    const base = reportsProjectSegments(name).slice(0, -1).join('/');
    // A root alias stands for the root reports (null); a project that no longer exists, for nothing.
    return base === '' ? null : (byName.get(base) ?? id);
  };
  return { ...request, project: Array.isArray(value) ? value.map(local) : local(value) };
}
