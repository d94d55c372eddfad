/**
 * Every operation of the API, with what each request field means, so that
 * generated requests get past validation often enough to reach the logic.
 *
 * The list of operations is not kept here by hand: `registeredOperations`
 * composes the real target modules (building them connects nothing) and
 * reads the registry, with each operation's declared request fields. The
 * hints below only say what kind of value a field takes; an operation or a
 * field without a hint is still fuzzed, with values of every kind, and the
 * run reports it as "unhinted" so the table can be completed.
 */
import { loadConfig } from '../../shared/config/config.js';
import { ConnectionCap } from '../../shared/http/connection-cap.js';
import { BodyMemoryBudget } from '../../shared/http/body-memory-budget.js';
import { StoreHub } from '../../shared/launcher/store-hub.js';
import { targetModules } from '../../shared/launcher/target-modules.js';
import type { ProcessServices } from '../../shared/launcher/target.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createMetricsRegistry } from '../../shared/observability/metrics.js';
import type { Authenticator } from '../../shared/auth/authenticator.js';
import type { TokenService } from '../../shared/auth/token-service.js';

export type FieldKind =
  | 'task' // an entity id (task, or model when model_events)
  | 'tasks'
  | 'model'
  | 'report'
  | 'project'
  | 'projectPath' // a project name with `/` between its segments
  | 'metric'
  | 'variant'
  | 'strings'
  | 'metricVariant' // one {metric, variants}
  | 'metricVariants' // list of {metric, variants}
  | 'taskMetricVariants' // list of {task, metric, variants}
  | 'int'
  | 'bool'
  | 'timestamp'
  | 'scroll'
  | 'string'
  | 'regex'
  | 'lineFormat'
  | 'queryList' // list condition with prefix operators
  | 'filters'
  | 'multiField'
  | 'orderBy'
  | 'onlyFields'
  | 'datetime'
  | 'range'
  | 'section' // a get_task_data event section
  | { enum: readonly string[] };

export interface OperationHint {
  fields: Record<string, FieldKind>;
  /** Deletes, locks or moves what it names: never given the caller's own witness ids. */
  destructive?: boolean;
}

const EVENT_TYPES = {
  enum: ['training_stats_scalar', 'training_stats_vector', 'training_debug_image', 'plot', 'log'],
} as const;
const ORDER = { enum: ['asc', 'desc'] } as const;
const SCALAR_KEY = { enum: ['iter', 'timestamp', 'iso_time'] } as const;

const REPORT_MESSAGE: Record<string, FieldKind> = { task: 'report', message: 'string', comment: 'string' };
const QUERY: Record<string, FieldKind> = {
  id: 'queryList',
  name: 'regex',
  user: 'queryList',
  project: 'queryList',
  include_subprojects: 'bool',
  status: 'queryList',
  tags: 'queryList',
  system_tags: 'queryList',
  filters: 'filters',
  _any_: 'multiField',
  _all_: 'multiField',
  _or_: 'multiField',
  any: 'multiField',
  status_changed: 'datetime',
  last_update: 'datetime',
  created: 'range',
  search_text: 'string',
  order_by: 'orderBy',
  page: 'int',
  page_size: 'int',
  size: 'int',
  scroll_id: 'scroll',
  refresh_scroll: 'bool',
  only_fields: 'onlyFields',
  allow_public: 'bool',
  comment: 'regex',
  report: 'regex',
  parent: 'queryList',
};

export const OPERATION_HINTS: Record<string, OperationHint> = {
  'auth.login': { fields: { expiration_sec: 'int' } },
  'events.add': { fields: {} },
  'events.add_batch': { fields: {} },
  'events.get_task_metrics': { fields: { tasks: 'tasks', event_type: EVENT_TYPES, model_events: 'bool' } },
  'events.get_multi_task_metrics': { fields: { tasks: 'tasks', event_type: EVENT_TYPES, model_events: 'bool' } },
  'events.get_scalar_metrics_and_variants': { fields: { task: 'task', model_events: 'bool' } },
  'events.get_vector_metrics_and_variants': { fields: { task: 'task', model_events: 'bool' } },
  'events.scalar_metrics_iter_histogram': {
    fields: {
      task: 'task',
      samples: 'int',
      key: SCALAR_KEY,
      metrics: 'metricVariants',
      model_events: 'bool',
      min_max: 'bool',
    },
  },
  'events.multi_task_scalar_metrics_iter_histogram': {
    fields: { tasks: 'tasks', samples: 'int', key: SCALAR_KEY, metrics: 'metricVariants', model_events: 'bool' },
  },
  'events.scalar_metrics_iter_raw': {
    fields: {
      task: 'task',
      metric: 'metricVariant',
      key: SCALAR_KEY,
      batch_size: 'int',
      count_total: 'bool',
      scroll_id: 'scroll',
      model_events: 'bool',
    },
  },
  'events.get_scalar_metric_data': {
    fields: { task: 'task', metric: 'metric', scroll_id: 'scroll', no_scroll: 'bool', model_events: 'bool' },
  },
  'events.get_task_latest_scalar_values': { fields: { task: 'task' } },
  'events.get_task_single_value_metrics': {
    fields: { tasks: 'tasks', metrics: 'metricVariants', model_events: 'bool' },
  },
  'events.vector_metrics_iter_histogram': {
    fields: { task: 'task', metric: 'metric', variant: 'variant', model_events: 'bool' },
  },
  'events.get_task_events': {
    fields: {
      task: 'task',
      event_type: EVENT_TYPES,
      metrics: 'metricVariants',
      order: ORDER,
      batch_size: 'int',
      count_total: 'bool',
      scroll_id: 'scroll',
      model_events: 'bool',
    },
  },
  'events.delete_for_task': { fields: { task: 'task', allow_locked: 'bool' }, destructive: true },
  'events.delete_for_model': { fields: { model: 'model', allow_locked: 'bool' }, destructive: true },
  'events.clear_scroll': { fields: { scroll_id: 'scroll' } },
  'events.get_task_log': {
    fields: {
      task: 'task',
      batch_size: 'int',
      navigate_earlier: 'bool',
      from_timestamp: 'timestamp',
      order: ORDER,
      metrics: 'metricVariants',
      search: 'string',
      search_regex: 'bool',
      search_ignore_case: 'bool',
    },
  },
  'events.download_task_log': {
    fields: { task: 'task', line_type: { enum: ['json', 'text', 'JSON', 'Text'] }, line_format: 'lineFormat' },
  },
  'events.clear_task_log': {
    fields: {
      task: 'task',
      allow_locked: 'bool',
      threshold_sec: 'int',
      include_metrics: 'strings',
      exclude_metrics: 'strings',
    },
    destructive: true,
  },
  'events.get_task_plots': {
    fields: {
      task: 'task',
      iters: 'int',
      metrics: 'metricVariants',
      scroll_id: 'scroll',
      no_scroll: 'bool',
      model_events: 'bool',
    },
  },
  'events.get_multi_task_plots': {
    fields: {
      tasks: 'tasks',
      task: 'task',
      iters: 'int',
      last_iters_per_task_metric: 'bool',
      metrics: 'metricVariants',
      scroll_id: 'scroll',
      no_scroll: 'bool',
      model_events: 'bool',
    },
  },
  'events.plots': {
    fields: {
      metrics: 'taskMetricVariants',
      iters: 'int',
      navigate_earlier: 'bool',
      refresh: 'bool',
      scroll_id: 'scroll',
      model_events: 'bool',
    },
  },
  'events.get_plot_sample': {
    fields: {
      task: 'task',
      metric: 'metric',
      iteration: 'int',
      navigate_current_metric: 'bool',
      refresh: 'bool',
      scroll_id: 'scroll',
      model_events: 'bool',
    },
  },
  'events.next_plot_sample': {
    fields: {
      task: 'task',
      scroll_id: 'scroll',
      navigate_earlier: 'bool',
      next_iteration: 'bool',
      model_events: 'bool',
    },
  },
  'events.debug_images': {
    fields: {
      metrics: 'taskMetricVariants',
      iters: 'int',
      navigate_earlier: 'bool',
      refresh: 'bool',
      scroll_id: 'scroll',
      model_events: 'bool',
    },
  },
  'events.get_debug_image_sample': {
    fields: {
      task: 'task',
      metric: 'metric',
      variant: 'variant',
      iteration: 'int',
      navigate_current_metric: 'bool',
      refresh: 'bool',
      scroll_id: 'scroll',
      model_events: 'bool',
    },
  },
  'events.next_debug_image_sample': {
    fields: {
      task: 'task',
      scroll_id: 'scroll',
      navigate_earlier: 'bool',
      next_iteration: 'bool',
      model_events: 'bool',
    },
  },
  'reports.create': {
    fields: {
      name: 'string',
      project: 'project',
      projectName: 'projectPath',
      comment: 'string',
      tags: 'strings',
      report: 'string',
      report_assets: 'strings',
    },
  },
  'reports.update': {
    fields: {
      task: 'report',
      name: 'string',
      tags: 'strings',
      comment: 'string',
      report: 'string',
      report_assets: 'strings',
    },
    destructive: true,
  },
  'reports.publish': { fields: REPORT_MESSAGE, destructive: true },
  'reports.archive': { fields: REPORT_MESSAGE, destructive: true },
  'reports.unarchive': { fields: REPORT_MESSAGE, destructive: true },
  'reports.move': {
    fields: { task: 'report', project: 'project', project_name: 'projectPath', projectName: 'projectPath' },
    destructive: true,
  },
  'reports.delete': { fields: { task: 'report', force: 'bool' }, destructive: true },
  'reports.get_tags': { fields: {} },
  'reports.get_all_ex': { fields: QUERY },
  'reports.get_task_data': {
    fields: {
      ...QUERY,
      type: 'queryList',
      search_hidden: 'bool',
      model_events: 'bool',
      debug_images: 'section',
      plots: 'section',
      scalar_metrics_iter_histogram: 'section',
      single_value_metrics: 'section',
      'input.view.entries.dataset': 'strings',
    },
  },
};

export interface RegisteredOperation {
  name: string;
  kind: 'json' | 'stream';
  /** Request fields the operation declares (empty when its schema is not a plain object). */
  declaredFields: string[];
}

/** The operations the `all` target registers, read from the real target modules. */
export function registeredOperations(): RegisteredOperation[] {
  const config = loadConfig({ DATA_DIR: '.', CREDENTIALS_FILE: 'credentials.json', AUTH_SECRET: 'f'.repeat(32) });
  const logger = createLogger({ level: 'silent', name: 'fuzz-catalogue' });
  const metrics = createMetricsRegistry('all');
  const services: ProcessServices = {
    config,
    logger,
    metrics,
    stores: new StoreHub(config, logger, 'fuzz-catalogue', metrics),
    // Composition keeps these for later calls; listing the operations calls none of them.
    authenticator: {} as Authenticator,
    tokens: {} as TokenService,
    signingSecret: 'f'.repeat(32),
    boundPorts: new Map(),
    bodyBudget: new BodyMemoryBudget(config.HTTP_MAX_BUFFERED_BODY_BYTES),
    connectionCap: new ConnectionCap(config.MAX_CONNECTIONS),
    readiness: async () => ({ ready: true, checks: {} }),
  };
  const out: RegisteredOperation[] = [];
  for (const module of Object.values(targetModules)) {
    for (const operation of module(services).operations ?? []) {
      const shape =
        operation.kind === 'json' ? (operation.request as { shape?: Record<string, unknown> }).shape : undefined;
      out.push({ name: operation.name, kind: operation.kind, declaredFields: Object.keys(shape ?? {}) });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Field hints of an operation: its declared fields (kind unknown) completed by the table. */
export function fieldsOf(operation: RegisteredOperation): {
  fields: Record<string, FieldKind | 'unknown'>;
  destructive: boolean;
  unhinted: string[];
} {
  const hint = OPERATION_HINTS[operation.name];
  const fields: Record<string, FieldKind | 'unknown'> = { ...(hint?.fields ?? {}) };
  const unhinted: string[] = hint === undefined ? [operation.name] : [];
  for (const name of operation.declaredFields) {
    if (!(name in fields)) {
      fields[name] = 'unknown';
      unhinted.push(`${operation.name}.${name}`);
    }
  }
  return { fields, destructive: hint?.destructive ?? false, unhinted };
}
