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
  value: number | undefined;
  /** vector values */
  values: number[] | undefined;
  url: string | undefined;
  key: string | undefined;
  plotStr: string | undefined;
  skipValidation: boolean | undefined;
  level: string | undefined;
  msg: string | undefined;
  xAxisLabel: string | undefined;
}

export interface NormalizeResult {
  event: NormalizedEvent | undefined;
  /** namespace and id the event names, when it names one (for request-level rules) */
  namespace: 't' | 'm' | undefined;
  entity: string | undefined;
  allowLocked: boolean;
  earlyError: string | undefined;
  lateError: string | undefined;
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

/** A rejection, with the entity named when it is known (request-level rules need it). */
function rejected(allowLocked: boolean, namespace: 't' | 'm' | undefined, entity: string | undefined, earlyError: string | undefined, lateError: string | undefined): NormalizeResult {
  return { event: undefined, namespace, entity, allowLocked, earlyError, lateError };
}

// Hot path (once per event): results and events are built with every property
// present from the start, so V8 keeps one object shape, and no spreads.
export function normalizeEvent(raw: Record<string, unknown>, context: NormalizeContext): NormalizeResult {
  // Step 1: control fields.
  const modelEvent = raw.model_event === true || (raw.model_event !== false && truthy(raw.model_event));
  const allowLocked = isAbsent(raw.allow_locked) ? context.allowLockedDefault : raw.allow_locked === true || (raw.allow_locked !== false && truthy(raw.allow_locked));
  let taskValue = raw.task;
  if (modelEvent && !isAbsent(raw.model)) taskValue = raw.model;
  const namespace: 't' | 'm' = modelEvent ? 'm' : 't';

  // Steps 2-5.
  const rawType = raw.type;
  if (isAbsent(rawType)) return rejected(allowLocked, undefined, undefined, "Event must have a 'type' field", undefined);
  let type = typeof rawType === 'string' ? rawType : String(rawType);
  if (!TYPE_SET.has(type)) {
    type = type.replaceAll(' ', '_');
    if (!TYPE_SET.has(type)) return rejected(allowLocked, undefined, undefined, `Invalid event type ${type}`, undefined);
  }
  if (type === 'log' && modelEvent) return rejected(allowLocked, undefined, undefined, 'Task log events are not supported for models', undefined);
  if (isAbsent(taskValue)) return rejected(allowLocked, undefined, undefined, "Event must have a 'task' field", undefined);
  if (typeof taskValue !== 'string' || taskValue.length === 0 || taskValue.length > MAX_ENTITY_ID_LENGTH) {
    return rejected(allowLocked, undefined, undefined, `${modelEvent ? 'Invalid model id' : 'Invalid task id'} ${String(taskValue)}`, undefined);
  }
  const entity = taskValue;

  // Step 7: iteration.
  const iter = parseIter(raw.iter);
  if (typeof iter === 'string') return rejected(allowLocked, namespace, entity, undefined, iter);

  // Step 8: timestamp (ts is a legacy alias that replaces it).
  const timestampValue = isAbsent(raw.ts) ? raw.timestamp : raw.ts;
  let timestamp = context.receivedAt;
  if (!isAbsent(timestampValue)) {
    timestamp = typeof timestampValue === 'number' && Number.isSafeInteger(timestampValue) ? timestampValue : parseTimestamp(timestampValue);
    if (Number.isNaN(timestamp)) return rejected(allowLocked, namespace, entity, undefined, "Invalid value for field 'timestamp'");
  }

  // Step 9: string fields (those of the event's type).
  const metric = stringField(raw, 'metric');
  if (metric === false) return rejected(allowLocked, namespace, entity, undefined, "Invalid value for field 'metric'");
  const variant = stringField(raw, 'variant');
  if (variant === false) return rejected(allowLocked, namespace, entity, undefined, "Invalid value for field 'variant'");
  const worker = stringField(raw, 'worker');
  if (worker === false) return rejected(allowLocked, namespace, entity, undefined, "Invalid value for field 'worker'");

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
    value: undefined,
    values: undefined,
    url: undefined,
    key: undefined,
    plotStr: undefined,
    skipValidation: undefined,
    level: undefined,
    msg: undefined,
    xAxisLabel: undefined,
  };
  const late = completeTypeFields(event, raw);
  if (late !== undefined) return rejected(allowLocked, namespace, entity, undefined, late);
  return { event, namespace, entity, allowLocked, earlyError: undefined, lateError: undefined };
}

/** Step 9 for the type's own fields and step 10; returns the rejection reason, if any. */
function completeTypeFields(event: NormalizedEvent, raw: Record<string, unknown>): string | undefined {
  switch (event.type) {
    case 'training_stats_scalar': {
      const value = parseScalar(raw.value);
      if (value === undefined) return "Missing value for field 'value'";
      if (value === false) return "Invalid value for field 'value'";
      event.value = value;
      if (typeof raw.x_axis_label === 'string') event.xAxisLabel = raw.x_axis_label;
      return undefined;
    }
    case 'training_stats_vector': {
      const values = isAbsent(raw.values) ? raw.value : raw.values;
      if (isAbsent(values)) return "Missing value for field 'values'";
      if (!isFiniteNumberArray(values)) return "Invalid value for field 'values'";
      event.values = values;
      return undefined;
    }
    case 'training_debug_image': {
      const url = stringField(raw, 'url');
      if (url === false) return "Invalid value for field 'url'";
      const key = stringField(raw, 'key');
      if (key === false) return "Invalid value for field 'key'";
      event.url = url;
      event.key = key;
      return undefined;
    }
    case 'plot': {
      const plotStr = stringField(raw, 'plot_str');
      if (plotStr === false) return "Invalid value for field 'plot_str'";
      event.plotStr = plotStr ?? '';
      event.skipValidation = truthy(raw.skip_validation);
      return undefined;
    }
    case 'log': {
      const level = stringField(raw, 'level');
      if (level === false) return "Invalid value for field 'level'";
      const msg = stringField(raw, 'msg');
      if (msg === false) return "Invalid value for field 'msg'";
      event.level = level;
      event.msg = msg;
      return undefined;
    }
  }
}
