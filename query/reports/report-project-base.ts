/**
 * The project a report goes into, as the ClearML web UI names it
 * (docs/reports.md, decision 12). reports.create receives `project` (an id)
 * and `projectName` (its name; allegroai/clearml-web
 * `report-dialog.component.ts` sends both). Beside a ClearML server the id
 * is one of the ClearML server's projects, unknown here: the report then
 * goes under the project of that name here (found, or created with its
 * `.reports` project), and the id is remembered as an alias of that name so
 * that the project's reports page, which lists by the same id, finds it.
 *
 * The name of an id unknown here is, in this order: the name the id was
 * first given (its alias), `projectName`, and in companion mode the ClearML
 * server's name for it (stock clients send the id alone). A known id wins
 * over all of them; an unknown id without any name is 400/401 as the
 * contract says; a public project stays 403/21.
 */
import { isApiError } from '../../shared/errors/error-catalogue.js';
import type { ReportsContext } from './reports-context.js';

export interface ProjectBase {
  /** The base name the reports project is resolved from (§1.3). */
  base: string;
  /** An id unknown here that `base` was found for: remember it once the report is in (`rememberAlias`). */
  alias?: string;
}

/** The base name of an existing project id, or of an id unknown here (see above). */
export async function projectIdBase(
  rc: ReportsContext,
  company: string,
  projectId: string,
  projectName?: string,
): Promise<ProjectBase> {
  try {
    return { base: (await rc.projects.requireWritable(company, projectId)).name };
  } catch (error) {
    if (!isApiError(error) || error.id !== 'invalid_project_id') throw error;
    const name =
      (await rc.aliases.nameOf(company, projectId)) ??
      (projectName || undefined) ??
      (await rc.deps.projectNames?.nameOf(company, projectId));
    if (name === undefined) throw error;
    return { base: name, alias: projectId };
  }
}

/** Remembers the alias a resolution found, after the report went in (a failed write leaves none). */
export async function rememberAlias(rc: ReportsContext, company: string, found: ProjectBase): Promise<void> {
  if (found.alias !== undefined) await rc.aliases.remember(company, found.alias, found.base);
}
