/**
 * Which fields each record kind has and how the query language treats them
 * (reports.md §4 table, §4.7 weights, §4.10 first segments, §1.2 references).
 * Reports and tasks share one catalogue: a report is a task record.
 */
import type { RecordKind } from './types.js';

export type RangeValueKind = 'datetime' | 'number';

export interface FieldCatalogue {
  /** Object name in `Fields not defined for object` messages. */
  readonly objectName: 'Task' | 'Model';
  /** List conditions (§4.2, §4.3). */
  readonly listFields: readonly string[];
  /** Regular-expression conditions (§4.4). */
  readonly patternFields: readonly string[];
  /** Date-time conditions (§4.6). */
  readonly dateTimeConditionFields: readonly string[];
  /** Range conditions (§4.6). */
  readonly rangeFields: ReadonlyMap<string, RangeValueKind>;
  /** First path segments accepted by only_fields, order_by and multi-field `fields` (§4.10). */
  readonly knownFields: ReadonlySet<string>;
  /** Top-level fields stored as epoch milliseconds and returned as date-time strings. */
  readonly dateTimeFields: ReadonlySet<string>;
  /** Top-level fields holding an id, returned as `{"id": …}` (§1.2). */
  readonly referenceFields: ReadonlySet<string>;
  /** Nested id paths returned as `{"id": …}`; `*` stands for every array element. */
  readonly nestedReferencePaths: readonly (readonly string[])[];
  /** Free-text search fields and weights (§4.7). */
  readonly textSearchFields: readonly (readonly [path: string, weight: number])[];
}

const TASK_FIELDS = [
  'id',
  'name',
  'type',
  'status',
  'status_reason',
  'status_message',
  'status_changed',
  'comment',
  'report',
  'report_assets',
  'created',
  'started',
  'completed',
  'published',
  'active_duration',
  'parent',
  'project',
  'output',
  'execution',
  'tags',
  'system_tags',
  'script',
  'last_worker',
  'last_worker_report',
  'last_update',
  'last_change',
  'last_changed_by',
  'last_iteration',
  'last_metrics',
  'metric_stats',
  'unique_metrics',
  'company_origin',
  'duration',
  'hyperparams',
  'configuration',
  'runtime',
  'models',
  'container',
  'enqueue_status',
  'company',
  'user',
];

const MODEL_FIELDS = [
  'id',
  'name',
  'parent',
  'project',
  'created',
  'task',
  'comment',
  'tags',
  'system_tags',
  'uri',
  'framework',
  'design',
  'labels',
  'ready',
  'last_update',
  'last_change',
  'last_changed_by',
  'ui_cache',
  'company_origin',
  'metadata',
  'last_iteration',
  'last_metrics',
  'unique_metrics',
  'company',
  'user',
];

const TASK_CATALOGUE: FieldCatalogue = {
  objectName: 'Task',
  listFields: ['id', 'user', 'project', 'parent', 'status', 'type', 'tags', 'system_tags'],
  patternFields: ['name', 'comment', 'report'],
  dateTimeConditionFields: ['status_changed', 'last_update', 'last_change'],
  rangeFields: new Map<string, RangeValueKind>([
    ['created', 'datetime'],
    ['started', 'datetime'],
    ['active_duration', 'number'],
    ['last_iteration', 'number'],
  ]),
  knownFields: new Set(TASK_FIELDS),
  dateTimeFields: new Set([
    'created',
    'started',
    'completed',
    'published',
    'status_changed',
    'last_update',
    'last_change',
    'last_worker_report',
  ]),
  referenceFields: new Set(['company', 'user', 'project', 'parent']),
  nestedReferencePaths: [
    ['execution', 'queue'],
    ['models', 'input', '*', 'model'],
    ['models', 'output', '*', 'model'],
  ],
  textSearchFields: [
    ['name', 10],
    ['id', 10],
    ['comment', 10],
    ['report', 10],
    ['models.input.model', 2],
    ['models.output.model', 2],
    ['script.repository', 1],
    ['script.entry_point', 1],
  ],
};

const MODEL_CATALOGUE: FieldCatalogue = {
  objectName: 'Model',
  listFields: ['id', 'user', 'project', 'parent', 'task', 'tags', 'system_tags', 'framework', 'uri'],
  patternFields: ['name', 'comment'],
  dateTimeConditionFields: ['last_update', 'last_change'],
  rangeFields: new Map<string, RangeValueKind>([
    ['created', 'datetime'],
    ['last_iteration', 'number'],
  ]),
  knownFields: new Set(MODEL_FIELDS),
  dateTimeFields: new Set(['created', 'last_update', 'last_change']),
  referenceFields: new Set(['company', 'user', 'project', 'parent', 'task']),
  nestedReferencePaths: [],
  textSearchFields: [
    ['name', 10],
    ['id', 10],
    ['comment', 10],
    ['parent', 5],
    ['task', 3],
    ['project', 3],
  ],
};

export function catalogueFor(kind: RecordKind): FieldCatalogue {
  return kind === 'model' ? MODEL_CATALOGUE : TASK_CATALOGUE;
}
