/**
 * Entry point of the query language shared by reports.get_all_ex and
 * reports.get_task_data (reports.md §3.9, §3.10, §4): compiles a request into
 * a predicate, a comparator and a projector over stored records. Everything
 * the request can get wrong is reported here, before any store access; the
 * only later failure is a sandboxed regular expression exhausting its time
 * budget (400/21).
 *
 *   const q = compileQuery(request, 'report');
 *   const projects = q.projectScope ? await loadProjects() : undefined;
 *   const sorted = q.select(await loadRecords(), projects);
 *   const page = sorted.slice(offset, offset + limit).map((r) => q.project(r, resolve));
 */
import { truthy } from '../../../shared/protocol/request-fields.js';
import { compileDateTimeCondition, compileRangeCondition } from './datetime-conditions.js';
import { catalogueFor, type FieldCatalogue } from './field-catalogue.js';
import { filterCondition, parseFilters, type FieldFilter } from './filters-object.js';
import { listCondition, listFieldReader, parseListCondition } from './list-condition.js';
import { compileMultiFieldConditions } from './multi-field.js';
import { compileOrdering, parseOrderBy, type SortKey } from './ordering.js';
import { parsePaging, type PagingSpec } from './paging.js';
import { compilePatternCondition, RegexBudget } from './pattern-regex.js';
import { compileProjection } from './projection.js';
import {
  reportsProjectScope,
  subprojectListScope,
  type ProjectRecordLike,
  type ProjectScope,
} from './project-scope.js';
import { optionalString } from './query-errors.js';
import { compileTextSearch } from './text-search.js';
import type { Condition, RecordKind, ReferenceResolver, StoredRecord } from './types.js';

export type { RecordKind, ReferenceKind, ReferenceResolver, StoredRecord } from './types.js';
export type { PagingSpec } from './paging.js';
export type { SortKey } from './ordering.js';
export type { BoundProjectScope, ProjectRecordLike, ProjectScope } from './project-scope.js';
export { scrollWindow, MAX_PAGE_SIZE, type ScrollWindow } from './paging.js';

/** Milliseconds of sandboxed (backtracking) regular-expression matching allowed per compiled query. */
export const REGEX_BUDGET_MS = 50;

export interface CompiledQuery {
  readonly kind: RecordKind;
  /** Every condition except the project scope (and except company scope and the hidden rule, which are the caller's). */
  matches(record: StoredRecord): boolean;
  compare(a: StoredRecord, b: StoredRecord): number;
  /** The record in response form after only_fields (§1.1, §1.2, §4.10). */
  project(record: StoredRecord, resolve: ReferenceResolver): Record<string, unknown>;
  readonly paging: PagingSpec;
  /** Present when the request selects projects in a way that needs the project records. */
  readonly projectScope: ProjectScope | undefined;
  /** Include public (company "") records. */
  readonly allowPublic: boolean;
  readonly searchHidden: boolean;
  /** get_task_data hidden rule: drop records whose system_tags contain "hidden" (never for reports). */
  readonly excludeHidden: boolean;
  readonly sortKeys: readonly SortKey[];
  /** Free-text score used by `@text_score` (0 without search_text). */
  score(record: StoredRecord): number;
  /** Evaluates costly matchers over a batch at once; `select` calls it. Optional before `matches`. */
  prepare(records: readonly StoredRecord[]): void;
  /** Filters (matches + project scope) and sorts. `projects` is required when `projectScope` is set. */
  select(records: readonly StoredRecord[], projects?: readonly ProjectRecordLike[]): StoredRecord[];
}

const has = (request: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(request, key);

function isNonEmptyId(value: unknown): boolean {
  return (typeof value === 'string' && value !== '') || (Array.isArray(value) && value.length > 0);
}

/** Compiles a get_all_ex (`report`) or get_task_data (`task` / `model`) request. Throws ApiError. */
export function compileQuery(request: Record<string, unknown>, kind: RecordKind): CompiledQuery {
  const catalogue = catalogueFor(kind);
  const budget = new RegexBudget(REGEX_BUDGET_MS);
  const includeSubprojects = truthy(request.include_subprojects);
  const filters = parseFilters(
    request.filters,
    (field) => catalogue.listFields.includes(field) && !(kind === 'report' && field === 'type'),
  );

  const conditions: Condition[] = [];
  const add = (c: Condition | undefined) => c && conditions.push(c);
  if (kind === 'report') add({ test: (record) => record.type === 'report' });
  const listed = listConditions(request, kind, catalogue, filters, includeSubprojects);
  listed.conditions.forEach(add);
  for (const field of catalogue.dateTimeConditionFields) add(compileDateTimeCondition(field, request[field]));
  for (const [field, valueKind] of catalogue.rangeFields) add(compileRangeCondition(field, request[field], valueKind));
  for (const field of catalogue.patternFields) add(compilePatternCondition(field, request[field], budget));
  compileMultiFieldConditions(request, catalogue, budget).forEach(add);
  const search = compileTextSearch(optionalString(request.search_text), catalogue);
  add(search);

  const sortKeys = parseOrderBy(request.order_by, catalogue, search !== undefined);
  const ordering = compileOrdering(sortKeys, catalogue, search?.score);
  const projection = compileProjection(request.only_fields, catalogue);
  const paging = parsePaging(request);

  const searchHidden = truthy(request.search_hidden);
  const matches = (record: StoredRecord) => conditions.every((c) => c.test(record));
  const prepare = (records: readonly StoredRecord[]) => {
    for (const c of conditions) c.prime?.(records);
  };
  const projectScope = listed.projectScope;

  return {
    kind,
    matches,
    compare: ordering.compare,
    project: projection.project,
    paging,
    projectScope,
    allowPublic:
      request.allow_public === undefined || request.allow_public === null ? true : truthy(request.allow_public),
    searchHidden,
    excludeHidden: kind !== 'report' && !searchHidden && !isNonEmptyId(request.id),
    sortKeys,
    score: (record) => (search ? search.score(record) : 0),
    prepare,
    select(records, projects) {
      let candidates = records;
      if (projectScope) {
        if (projects === undefined) throw new Error('select: this query has a project scope; pass the project records');
        const scope = projectScope.bind(projects);
        candidates = scope.empty ? [] : records.filter((r) => scope.test(r));
      }
      prepare(candidates);
      return ordering.sort(candidates.filter(matches));
    },
  };
}

interface ListConditions {
  conditions: Condition[];
  projectScope: ProjectScope | undefined;
}

/**
 * List conditions and filters. `filters.<f>` replaces the top-level `<f>`;
 * reports ignore `type` and select `project` through `.reports` projects;
 * get_task_data compares `type` case-insensitively.
 */
function listConditions(
  request: Record<string, unknown>,
  kind: RecordKind,
  catalogue: FieldCatalogue,
  filters: ReadonlyMap<string, FieldFilter>,
  includeSubprojects: boolean,
): ListConditions {
  const conditions: Condition[] = [];
  let projectScope: ProjectScope | undefined;
  for (const field of catalogue.listFields) {
    if (kind === 'report' && field === 'type') continue;
    const reader = listFieldReader(field, { caseInsensitive: kind === 'task' && field === 'type' });
    const filter = filters.get(field);
    if (filter) {
      const condition = filterCondition(filter, reader);
      if (condition) conditions.push(condition);
      continue;
    }
    if (field === 'project' && kind === 'report') {
      if (has(request, 'project')) projectScope = reportsProjectScope(request.project, includeSubprojects);
      continue;
    }
    if (field === 'project' && includeSubprojects) {
      const buckets = parseListCondition(field, request.project);
      if (buckets) projectScope = subprojectListScope(buckets);
      continue;
    }
    const buckets = parseListCondition(field, request[field]);
    if (buckets) conditions.push(listCondition(buckets, reader));
  }
  return { conditions, projectScope };
}
