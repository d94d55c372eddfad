/**
 * The project a report goes into, as the ClearML web UI names it
 * (docs/reports.md, decision 12): reports.create receives `project` (an id)
 * and `projectName` (its name; allegroai/clearml-web
 * `report-dialog.component.ts` sends both). Beside a ClearML server the id
 * is one of the ClearML server's projects, unknown here: the report then
 * goes under the project of that name here (found, or created with its
 * `.reports` project). A known id wins over the name; an unknown id without
 * a name is 400/401 as the contract says; a public project stays 403/21.
 */
import { isApiError } from '../../shared/errors/error-catalogue.js';
import type { ReportsContext } from './reports-context.js';

export async function reportProjectBase(rc: ReportsContext, company: string, projectId: string | undefined, projectName: string | undefined): Promise<string> {
  if (!projectId) return projectName ?? '';
  try {
    return (await rc.projects.requireWritable(company, projectId)).name;
  } catch (error) {
    if (projectName && isApiError(error) && error.id === 'invalid_project_id') return projectName;
    throw error;
  }
}
