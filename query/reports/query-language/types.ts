/**
 * Shapes shared by the query-language modules. Records are the stored form
 * (references as plain id strings, date-times as epoch milliseconds), so the
 * store adapter can hand them over without conversion.
 */

export type StoredRecord = Readonly<Record<string, unknown>>;

/** `report`: reports.get_all_ex; `task` / `model`: reports.get_task_data without / with model_events. */
export type RecordKind = 'report' | 'task' | 'model';

export type ReferenceKind = 'project' | 'user' | 'company';

/** Looks up a referenced record (project record, or `{name}` for users and companies); undefined when unknown. */
export type ReferenceResolver = (kind: ReferenceKind, id: string) => Record<string, unknown> | undefined;

/** One compiled condition over records. */
export interface Condition {
  test(record: StoredRecord): boolean;
  /**
   * Lets conditions whose matcher is costly per call (sandboxed regular
   * expressions) evaluate every record of a batch in one go before `test`.
   */
  prime?(records: readonly StoredRecord[]): void;
}
