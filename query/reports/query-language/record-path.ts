/**
 * Reading values out of stored records by dotted path, the way MongoDB
 * resolves paths. Paths come from clients (only_fields, order_by, `fields`
 * of multi-field conditions): only own properties are read, and a segment
 * naming a prototype is refused (400/12) rather than looked up.
 */
import { assertOwnKeyName, ownValue } from '../../../shared/protocol/client-object.js';
import type { StoredRecord } from './types.js';

export function splitPath(path: string): string[] {
  const segments = path.split('.');
  segments.forEach(assertOwnKeyName);
  return segments;
}

/**
 * The value at `segments`; arrays met along the way are traversed element by
 * element and the results flattened (`models.input.model` gives every model id).
 */
export function valueAtPath(value: unknown, segments: readonly string[], from = 0): unknown {
  if (from === segments.length) return value;
  if (Array.isArray(value)) {
    const found: unknown[] = [];
    for (const element of value) {
      const inner = valueAtPath(element, segments, from);
      if (Array.isArray(inner)) found.push(...inner);
      else if (inner !== undefined) found.push(inner);
    }
    return found.length > 0 ? found : undefined;
  }
  if (value !== null && typeof value === 'object') {
    return valueAtPath(ownValue(value, segments[from]!), segments, from + 1);
  }
  return undefined;
}

export function recordValue(record: StoredRecord, segments: readonly string[]): unknown {
  return segments.length === 1 ? ownValue(record, segments[0]!) : valueAtPath(record, segments);
}

/** "Missing, null or empty array": what `null` in a list condition admits. */
export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/** Strings found at a field: the value itself, or the string elements of an array. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}
