/**
 * Every task and model record of reports.get_task_data carries a `project`
 * object when the projection includes it (docs/reports.md, decision 11):
 * every report widget of the ClearML web UI reads `tasks[0].project.id`
 * and fails on a record without one, which implicit tasks (no project) were.
 * A record without a project gets `{}`, the form ClearML itself gives an
 * empty reference (apiserver/database/projection.py, `_ReferenceProxy`).
 */

/** Whether `only_fields` (absent: every field) shows the project of a record. */
function showsProject(onlyFields: unknown): boolean {
  if (!Array.isArray(onlyFields)) return true;
  const entries = onlyFields.filter((f): f is string => typeof f === 'string');
  if (entries.some((f) => f === '-project')) return false;
  const inclusions = entries.filter((f) => !f.startsWith('-'));
  return inclusions.length === 0 || inclusions.some((f) => f === 'project' || f.startsWith('project.'));
}

export function withProjectReference(tasks: Record<string, unknown>[], onlyFields: unknown): Record<string, unknown>[] {
  if (!showsProject(onlyFields)) return tasks;
  return tasks.map((task) =>
    task.project !== null && typeof task.project === 'object' ? task : { ...task, project: {} },
  );
}
