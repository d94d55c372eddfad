/**
 * One document of ClearML's Elasticsearch events indices, as an export
 * holds it (`_index`, `_id`, `_source`), turned into the event that
 * events.add_batch takes (events.md §1.2). The stored form is ClearML's
 * (allegroai/clearml-server apiserver/bll/event/event_bll.py `add_events`,
 * apiserver/elastic/mappings/events/*.json): indices are named
 * `events-<type>-<company id>` (event_common.py `get_index_name`), vectors
 * keep their array under `value`, plots above ClearML's compression
 * threshold keep the figure as `plot_data` (base64 of zlib, event_common.py
 * `uncompress_plot`) instead of `plot_str`, and `@timestamp`, `company_id`,
 * `plot_len`, `valid_plot` and `source_urls` are ClearML's own bookkeeping.
 * Pure: no I/O.
 */
import { inflateSync } from 'node:zlib';
import { EVENT_TYPES } from '../../shared/events/domain/event-types.js';

/** The fields events.add_batch stores; anything else in `_source` is ClearML's bookkeeping. */
const KEPT = [
  'type',
  'task',
  'iter',
  'metric',
  'variant',
  'timestamp',
  'worker',
  'model_event',
  'value',
  'url',
  'key',
  'plot_str',
  'level',
  'msg',
];

export type Converted = { event: Record<string, unknown>; company: string } | { skip: string };

/** `events-<type>-<company>`: the type and the company (lower-cased by ClearML), or undefined for another index. */
export function indexParts(index: unknown): { type: string; company: string } | undefined {
  if (typeof index !== 'string' || !index.startsWith('events-')) return undefined;
  const rest = index.slice('events-'.length);
  for (const type of EVENT_TYPES) {
    if (rest.startsWith(`${type}-`)) return { type, company: rest.slice(type.length + 1) };
  }
  return undefined;
}

/** The documents a line of an export holds: an elasticdump line is one hit; a saved `_search` / scroll page holds `hits.hits`. */
export function documentsOf(line: unknown): unknown[] {
  if (line === null || typeof line !== 'object') return [];
  const record = line as Record<string, unknown>;
  if ('_source' in record) return [record];
  const hits = (record.hits as Record<string, unknown> | undefined)?.hits;
  return Array.isArray(hits) ? hits : [];
}

export function convertDocument(document: unknown): Converted {
  if (document === null || typeof document !== 'object') return { skip: 'not a document' };
  const { _index: index, _source: source } = document as Record<string, unknown>;
  const parts = indexParts(index);
  if (parts === undefined) return { skip: 'not an events index' };
  if (source === null || typeof source !== 'object') return { skip: 'no _source' };
  const stored = source as Record<string, unknown>;
  const event: Record<string, unknown> = {};
  for (const field of KEPT) if (stored[field] !== undefined && stored[field] !== null) event[field] = stored[field];
  event.type = parts.type;
  if (typeof event.task !== 'string' || event.task === '') return { skip: 'no task' };
  if (parts.type === 'plot' && event.plot_str === undefined && typeof stored.plot_data === 'string') {
    try {
      event.plot_str = inflateSync(Buffer.from(stored.plot_data, 'base64')).toString('utf8');
    } catch {
      return { skip: 'plot_data that does not decompress' };
    }
  }
  // Published tasks are locked (events.md §1.9); their history is imported all the same.
  event.allow_locked = true;
  return { event, company: parts.company };
}
