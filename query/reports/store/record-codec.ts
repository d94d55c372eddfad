/**
 * Redis hash fields (all strings) to the stored-record form the query
 * language works on (query-language/types.ts): date-times as epoch ms,
 * numbers as numbers, lists as arrays, references as id strings. Fields the
 * service keeps for itself (the writer's summary_seq, summary_chunk,
 * last_scalar_at and max_iter; deleting_status) never leave here.
 */
import { createHash } from 'node:crypto';
import { LAST_SCALAR_AT_FIELD, MAX_ITER_FIELD } from '../../../shared/events/storage-layout.js';
import { catalogueFor } from '../query-language/field-catalogue.js';
import type { StoredRecord } from '../query-language/types.js';

/** The query language's date-time fields of a task, which include every one of a model's. */
const DATE_FIELDS = catalogueFor('task').dateTimeFields;
const NUMBER_FIELDS = new Set(['last_iteration', 'active_duration']);
/** Fields stored as JSON text (seeded records may carry any of them). */
const JSON_FIELDS = new Set([
  'tags',
  'system_tags',
  'report_assets',
  'execution',
  'script',
  'models',
  'output',
  'hyperparams',
  'configuration',
  'runtime',
  'container',
  'labels',
  'metadata',
  'design',
  'ui_cache',
  'unique_metrics',
  'metric_stats',
  'path',
]);
const INTERNAL_FIELDS = new Set([
  'summary_seq',
  'summary_chunk',
  'deleting_status',
  LAST_SCALAR_AT_FIELD,
  MAX_ITER_FIELD,
]);
const BOOLEAN_FIELDS = new Set(['ready']);

function decodeField(field: string, text: string): unknown {
  if (DATE_FIELDS.has(field) || NUMBER_FIELDS.has(field)) {
    const n = Number(text);
    return text === '' || !Number.isFinite(n) ? undefined : n;
  }
  if (JSON_FIELDS.has(field)) {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  if (BOOLEAN_FIELDS.has(field)) return text === '1' || text === 'true';
  return text;
}

/** A task, report or model hash as a stored record; undefined when the hash does not exist. */
export function decodeEntityHash(
  hash: Record<string, string>,
  lastMetrics?: Record<string, string>,
): StoredRecord | undefined {
  if (hash.company === undefined || hash.id === undefined) return undefined;
  const record: Record<string, unknown> = {};
  // Fields in one order whatever order the hash holds them in (each writer adds its own): records with the
  // same fields then share one V8 shape, and a query's pass over 10,000 cached records reads them at
  // monomorphic speed instead of ~1 µs a record through megamorphic lookups (docs/reports.md, "Read path").
  for (const field of Object.keys(hash).sort()) {
    if (INTERNAL_FIELDS.has(field)) continue;
    const text = hash[field]!;
    const value = decodeField(field, text);
    if (value !== undefined) record[field] = value;
  }
  // A delete holds ingest off with status publishing; readers keep seeing the real status.
  if (hash.deleting_status !== undefined) record.status = hash.deleting_status;
  if (lastMetrics && Object.keys(lastMetrics).length > 0) record.last_metrics = decodeLastMetrics(lastMetrics);
  return frozen(record);
}

/** A project hash as the record `project.*` shows and the project selection reads. */
export function decodeProjectHash(hash: Record<string, string>): Record<string, unknown> | undefined {
  if (hash.id === undefined) return undefined;
  const record: Record<string, unknown> = {};
  for (const [field, text] of Object.entries(hash)) {
    const value = decodeField(field, text);
    if (value !== undefined) record[field] = value;
  }
  return frozen(record);
}

/**
 * The record frozen, as a copy built in one go by Object.fromEntries. V8
 * turns an object that grew field by field past ~17 fields into a hash
 * table when it is frozen (a spread copy is slow to read once frozen too),
 * and a query reads a field of every cached record: 10,000 reads of `type`
 * took 0.8-2.7 ms from such records, 0.12 ms from these.
 */
function frozen<T extends object>(record: T): Readonly<T> {
  return Object.freeze(Object.fromEntries(Object.entries(record))) as Readonly<T>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** The writer's per-(metric, variant) stats as reports.md §6.1 `last_metrics`. */
export function decodeLastMetrics(hash: Record<string, string>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [field, json] of Object.entries(hash)) {
    let key: unknown;
    let stats: Record<string, unknown>;
    try {
      key = JSON.parse(field);
      stats = JSON.parse(json) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!Array.isArray(key) || typeof key[0] !== 'string' || typeof key[1] !== 'string') continue;
    // The writer also keeps the last value's iteration and timestamp; §6.1 does not return them.
    const { iter: _iter, timestamp: _timestamp, ...shown } = stats;
    (out[md5(key[0])] ??= {})[md5(key[1])] = shown;
  }
  return out;
}
