/**
 * `only_fields` (reports.md §4.10): inclusions, `-` exclusions, nested paths,
 * `a` winning over `a.b`, `id` always, and reference sub-fields
 * (`project.name`, `project.*`, `user.name`, `company.name`) filled from the
 * caller's resolver (§1.2).
 */
import { ownValue } from '../../../shared/protocol/client-object.js';
import { strList, validationErrorFrom } from '../../../shared/protocol/request-fields.js';
import { renderDateTime, referenceObject, renderRecord } from './record-output.js';
import type { FieldCatalogue } from './field-catalogue.js';
import { fieldsNotDefined } from './query-errors.js';
import { splitPath } from './record-path.js';
import type { ReferenceKind, ReferenceResolver, StoredRecord } from './types.js';

export interface Projection {
  project(record: StoredRecord, resolve: ReferenceResolver): Record<string, unknown>;
}

/** Sub-fields wanted from one referenced record: some paths, or every field (`.*`). */
interface ReferenceWish {
  all: boolean;
  paths: string[][];
}

const RESOLVABLE: Readonly<Record<string, ReferenceKind>> = { project: 'project', user: 'user', company: 'company' };
/** Internal project fields that `project.*` does not return (§1.2). */
const HIDDEN_REFERENCED_FIELDS = new Set(['path', 'id']);
const REFERENCED_DATE_FIELDS = new Set(['created', 'last_update']);
const onlyFieldsSchema = strList()('only_fields');

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function compileProjection(value: unknown, catalogue: FieldCatalogue): Projection {
  const parsed = onlyFieldsSchema.safeParse(value);
  if (!parsed.success) throw validationErrorFrom(parsed.error);
  const inclusions: string[][] = [];
  const exclusions: string[][] = [];
  const references = new Map<string, ReferenceWish>();

  for (const entry of parsed.data ?? []) {
    const excluded = entry.startsWith('-');
    let path = excluded ? entry.slice(1) : entry;
    if (path.endsWith('.*')) {
      const base = path.slice(0, -2);
      if (!excluded && catalogue.referenceFields.has(base)) {
        wish(references, base).all = true;
        continue;
      }
      path = base;
    }
    const segments = splitPath(path);
    checkPath(segments, entry, path, catalogue);
    if (excluded) exclusions.push(segments);
    else if (segments.length > 1 && catalogue.referenceFields.has(segments[0]!))
      wish(references, segments[0]!).paths.push(segments.slice(1));
    else inclusions.push(segments);
  }

  const included = withoutCovered(inclusions);
  for (const [field] of references)
    if (included.some((p) => p.length === 1 && p[0] === field)) references.delete(field);
  const inclusionMode = included.length > 0 || references.size > 0;

  return {
    project(record, resolve) {
      const rendered = renderRecord(record, catalogue);
      let out: Record<string, unknown>;
      if (!inclusionMode) out = rendered;
      else {
        out = {};
        if (rendered.id !== undefined) out.id = rendered.id;
        for (const path of included) mergeInto(out, pick(rendered, path, 0));
        for (const [field, w] of references) {
          const ref = referencedObject(record[field], field, w, resolve);
          if (ref !== undefined) out[field] = ref;
        }
      }
      for (const path of exclusions)
        if (!(path.length === 1 && path[0] === 'id')) out = without(out, path, 0) as Record<string, unknown>;
      return out;
    },
  };
}

function checkPath(segments: string[], entry: string, path: string, catalogue: FieldCatalogue): void {
  if (path === '') throw fieldsNotDefined(entry, catalogue.objectName);
  if (segments.some((s) => s === '') || !catalogue.knownFields.has(segments[0]!))
    throw fieldsNotDefined(path, catalogue.objectName);
}

function wish(references: Map<string, ReferenceWish>, field: string): ReferenceWish {
  let w = references.get(field);
  if (!w) references.set(field, (w = { all: false, paths: [] }));
  return w;
}

/** Drops paths that a shorter listed path already covers (`a` wins over `a.b`). */
function withoutCovered(paths: string[][]): string[][] {
  const isPrefix = (p: string[], q: string[]) => p.length < q.length && p.every((s, i) => q[i] === s);
  const unique = [...new Map(paths.map((p) => [p.join('.'), p])).values()];
  return unique.filter((q) => !unique.some((p) => isPrefix(p, q)));
}

function referencedObject(stored: unknown, field: string, w: ReferenceWish, resolve: ReferenceResolver): unknown {
  if (typeof stored !== 'string') return stored === null ? undefined : stored;
  const out = referenceObject(stored);
  const kind = RESOLVABLE[field];
  if (stored === '' || kind === undefined) return out;
  const target = resolve(kind, stored);
  if (!target) return out;
  const shown: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(target)) {
    if (v !== undefined && !HIDDEN_REFERENCED_FIELDS.has(k))
      shown[k] = REFERENCED_DATE_FIELDS.has(k) ? renderDateTime(v) : v;
  }
  if (w.all) return { ...out, ...shown };
  for (const path of w.paths) mergeInto(out, pick(shown, path, 0));
  return out;
}

/** The part of `value` at `path` as a partial object; arrays are projected element by element. */
function pick(value: unknown, path: readonly string[], from: number): unknown {
  if (from === path.length) return value;
  if (Array.isArray(value)) return value.filter(isObject).map((e) => pick(e, path, from) ?? {});
  if (!isObject(value)) return undefined;
  const inner = pick(ownValue(value, path[from]!), path, from + 1);
  return inner === undefined ? undefined : { [path[from]!]: inner };
}

function mergeInto(target: Record<string, unknown>, part: unknown): void {
  if (!isObject(part)) return;
  for (const [k, v] of Object.entries(part)) target[k] = merge(ownValue(target, k), v);
}

function merge(existing: unknown, incoming: unknown): unknown {
  if (isObject(existing) && isObject(incoming)) {
    const copy = { ...existing };
    mergeInto(copy, incoming);
    return copy;
  }
  if (Array.isArray(existing) && Array.isArray(incoming) && existing.length === incoming.length) {
    return existing.map((e, i) => merge(e, incoming[i]));
  }
  return incoming;
}

/** A copy of `value` without `path`; untouched branches are shared. */
function without(value: unknown, path: readonly string[], from: number): unknown {
  if (Array.isArray(value)) return value.map((e) => without(e, path, from));
  if (!isObject(value) || !Object.hasOwn(value, path[from]!)) return value;
  const copy = { ...value };
  if (from === path.length - 1) delete copy[path[from]!];
  else copy[path[from]!] = without(value[path[from]!], path, from + 1);
  return copy;
}
