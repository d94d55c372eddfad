/**
 * The response representation of stored records (reports.md §1.1, §1.2):
 * references as `{"id": …}` (`{}` for ""), date-times as ClearML strings,
 * tags sorted by code point, never-set fields absent.
 */
import { sortedByCodePoints } from '../../events/common/code-point-order.js';
import { formatClearmlDateTime } from './clearml-datetime.js';
import type { FieldCatalogue } from './field-catalogue.js';
import type { StoredRecord } from './types.js';

const SORTED_FIELDS = ['tags', 'system_tags'];

export function referenceObject(id: string): Record<string, unknown> {
  return id === '' ? {} : { id };
}

/** A stored date-time as returned to clients; other values unchanged. */
export function renderDateTime(value: unknown): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) return formatClearmlDateTime(value);
  if (value instanceof Date) return formatClearmlDateTime(value.getTime());
  return value;
}

/** The whole record in response form. */
export function renderRecord(record: StoredRecord, catalogue: FieldCatalogue): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    if (catalogue.referenceFields.has(key)) {
      if (typeof value === 'string') out[key] = referenceObject(value);
      else if (value !== null) out[key] = value;
    } else if (catalogue.dateTimeFields.has(key)) {
      out[key] = renderDateTime(value);
    } else if (SORTED_FIELDS.includes(key) && Array.isArray(value)) {
      out[key] = value.every((v) => typeof v === 'string') ? sortedByCodePoints(value) : [...value];
    } else {
      out[key] = value;
    }
  }
  for (const path of catalogue.nestedReferencePaths) {
    if (path[0]! in out) out[path[0]!] = withReferences(out[path[0]!], path, 1);
  }
  return out;
}

/** Copies `value` with the ids at `path` turned into reference objects. */
function withReferences(value: unknown, path: readonly string[], from: number): unknown {
  if (from === path.length) return typeof value === 'string' ? referenceObject(value) : value;
  if (path[from] === '*') return Array.isArray(value) ? value.map((v) => withReferences(v, path, from + 1)) : value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const key = path[from]!;
  const obj = value as Record<string, unknown>;
  return key in obj ? { ...obj, [key]: withReferences(obj[key], path, from + 1) } : obj;
}
