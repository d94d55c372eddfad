/**
 * The per-event checks and normalisation of events.md §1.3, in the
 * contract's order, for the one validation path that both decoders use.
 *
 * The checks split in two around the entity check (step 6), which needs the
 * store: `earlyError` holds a failure of steps 2-5 (and a malformed id),
 * `lateError` a failure of steps 7-10. The session decides the reason once
 * the entity's status is known: early, then entity, then late.
 */
import { truthy } from '../../shared/protocol/request-fields.js';

export const EVENT_TYPES = ['training_stats_scalar', 'training_stats_vector', 'training_debug_image', 'plot', 'log'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
const TYPE_SET = new Set<string>(EVENT_TYPES);

export const MAX_ENTITY_ID_LENGTH = 128;
const ITER_LIMIT = 9_223_372_036_854_775_808; // 2^63: the first value a double can hold above the int64 range
const INT_STRING = /^\s*[+-]?\d+\s*$/;
const FLOAT_STRING = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;
const NUMERIC_TIMESTAMP = FLOAT_STRING;

/** A normalised event, ready to be encoded (events.md §1.4). */
export interface NormalizedEvent {
  type: EventType;
  namespace: 't' | 'm';
  entity: string;
  allowLocked: boolean;
  iter: number | undefined;
  timestamp: number;
  metric: string;
  variant: string;
  worker: string;
  /** scalar value */
  value?: number;
  /** vector values */
  values?: number[];
  url?: string;
  key?: string;
  plotStr?: string;
  skipValidation?: boolean;
  level?: string;
  msg?: string;
  xAxisLabel?: string;
}

export interface NormalizeResult {
  event?: NormalizedEvent;
  /** namespace and id the event names, when it names one (for request-level rules) */
  namespace?: 't' | 'm';
  entity?: string;
  allowLocked: boolean;
  earlyError?: string;
  lateError?: string;
}

export interface NormalizeContext {
  receivedAt: number;
  defaultWorker: string;
  allowLockedDefault: boolean;
}

const isAbsent = (v: unknown) => v === undefined || v === null;

function stringField(raw: Record<string, unknown>, name: string): string | undefined | false {
  const value = raw[name];
  if (isAbsent(value)) return undefined;
  return typeof value === 'string' ? value : false;
}

/** iter per step 7: integers as they are, truncation, integer strings; undefined for absent. */
function parseIter(value: unknown): number | undefined | string {
  if (isAbsent(value)) return undefined;
  let iter: number;
  if (typeof value === 'number' && Number.isFinite(value)) iter = Math.trunc(value);
  else if (typeof value === 'string' && INT_STRING.test(value)) iter = Number(value.trim());
  else return "Invalid value for field 'iter'";
  if (iter >= ITER_LIMIT || iter < -ITER_LIMIT) return 'Iteration number should not exceed 9223372036854775807';
  return iter === 0 ? 0 : iter;
}

const HAS_ZONE = /(?:[zZ]|[+-]\d{2}(?::?\d{2})?)$/;

/** timestamp per step 8: epoch ms number, numeric string or ISO-8601; NaN when unparseable. */
export function parseTimestamp(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : Number.NaN;
  if (typeof value !== 'string') return Number.NaN;
  if (NUMERIC_TIMESTAMP.test(value)) return Math.trunc(Number(value));
  const text = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return Number.NaN;
  // A date-time without a zone is UTC (JavaScript would read it as local time).
  const withZone = text.length > 10 && !HAS_ZONE.test(text) ? `${text.replace(' ', 'T')}Z` : text.replace(' ', 'T');
  const ms = Date.parse(withZone);
  return Number.isFinite(ms) ? ms : Number.NaN;
}

function parseScalar(value: unknown): number | undefined | false {
  if (isAbsent(value)) return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? value : false;
  if (typeof value === 'string' && FLOAT_STRING.test(value)) return Number(value);
  return false;
}

function isFiniteNumberArray(value: unknown): value is number[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'number' || !Number.isFinite(item)) return false;
  return true;
}

export function normalizeEvent(raw: Record<string, unknown>, context: NormalizeContext): NormalizeResult {
  // Step 1: control fields.
  const modelEvent = truthy(raw.model_event);
  const allowLocked = isAbsent(raw.allow_locked) ? context.allowLockedDefault : truthy(raw.allow_locked);
  let taskValue = raw.task;
  if (modelEvent && !isAbsent(raw.model)) taskValue = raw.model;
  const namespace: 't' | 'm' = modelEvent ? 'm' : 't';

  // Steps 2-5.
  const rawType = raw.type;
  if (isAbsent(rawType)) return { allowLocked, earlyError: "Event must have a 'type' field" };
  const type = String(rawType).replaceAll(' ', '_');
  if (!TYPE_SET.has(type)) return { allowLocked, earlyError: `Invalid event type ${type}` };
  if (type === 'log' && modelEvent) return { allowLocked, earlyError: 'Task log events are not supported for models' };
  if (isAbsent(taskValue)) return { allowLocked, earlyError: "Event must have a 'task' field" };
  if (typeof taskValue !== 'string' || taskValue.length === 0 || taskValue.length > MAX_ENTITY_ID_LENGTH) {
    return { allowLocked, earlyError: `${modelEvent ? 'Invalid model id' : 'Invalid task id'} ${String(taskValue)}` };
  }
  const entity = taskValue;
  const base = { namespace, entity, allowLocked };

  // Step 7: iteration.
  const iter = parseIter(raw.iter);
  if (typeof iter === 'string') return { ...base, lateError: iter };

  // Step 8: timestamp (ts is a legacy alias that replaces it).
  const timestampValue = isAbsent(raw.ts) ? raw.timestamp : raw.ts;
  let timestamp = context.receivedAt;
  if (!isAbsent(timestampValue)) {
    timestamp = parseTimestamp(timestampValue);
    if (Number.isNaN(timestamp)) return { ...base, lateError: "Invalid value for field 'timestamp'" };
  }

  // Step 9: string fields (those of the event's type).
  const metric = stringField(raw, 'metric');
  if (metric === false) return { ...base, lateError: "Invalid value for field 'metric'" };
  const variant = stringField(raw, 'variant');
  if (variant === false) return { ...base, lateError: "Invalid value for field 'variant'" };
  const worker = stringField(raw, 'worker');
  if (worker === false) return { ...base, lateError: "Invalid value for field 'worker'" };

  const event: NormalizedEvent = {
    type: type as EventType,
    namespace,
    entity,
    allowLocked,
    iter,
    timestamp,
    metric: metric || '',
    variant: variant || '',
    worker: worker ?? context.defaultWorker,
  };

  switch (type as EventType) {
    case 'training_stats_scalar': {
      const value = parseScalar(raw.value);
      if (value === undefined) return { ...base, lateError: "Missing value for field 'value'" };
      if (value === false) return { ...base, lateError: "Invalid value for field 'value'" };
      event.value = value;
      const label = raw.x_axis_label;
      if (typeof label === 'string') event.xAxisLabel = label;
      break;
    }
    case 'training_stats_vector': {
      const values = isAbsent(raw.values) ? raw.value : raw.values;
      if (isAbsent(values)) return { ...base, lateError: "Missing value for field 'values'" };
      if (!isFiniteNumberArray(values)) return { ...base, lateError: "Invalid value for field 'values'" };
      event.values = values;
      break;
    }
    case 'training_debug_image': {
      const url = stringField(raw, 'url');
      if (url === false) return { ...base, lateError: "Invalid value for field 'url'" };
      const key = stringField(raw, 'key');
      if (key === false) return { ...base, lateError: "Invalid value for field 'key'" };
      if (url !== undefined) event.url = url;
      if (key !== undefined) event.key = key;
      break;
    }
    case 'plot': {
      const plotStr = stringField(raw, 'plot_str');
      if (plotStr === false) return { ...base, lateError: "Invalid value for field 'plot_str'" };
      event.plotStr = plotStr ?? '';
      event.skipValidation = truthy(raw.skip_validation);
      break;
    }
    case 'log': {
      const level = stringField(raw, 'level');
      if (level === false) return { ...base, lateError: "Invalid value for field 'level'" };
      const msg = stringField(raw, 'msg');
      if (msg === false) return { ...base, lateError: "Invalid value for field 'msg'" };
      if (level !== undefined) event.level = level;
      if (msg !== undefined) event.msg = msg;
      break;
    }
  }
  return { ...base, event };
}
