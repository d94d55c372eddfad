/**
 * The per-event checks and normalisation of events.md §1.3, in the
 * contract's order, for the one validation path that both decoders use,
 * with the store limits of event-limits.ts (docs/ingest.md "Per-event
 * limits") checked alongside the step they belong to.
 *
 * The checks split in two around the entity check (step 6), which needs the
 * store: `earlyError` holds a failure of steps 2-5 (and a malformed id),
 * `lateError` a failure of steps 7-10. The session decides the reason once
 * the entity's status is known: early, then entity, then late.
 *
 * Any client value may arrive here (any type, size or depth): only the
 * event's own properties are read, and no value is walked or stringified.
 * Fields not listed in events.md §1.2 (including `__proto__`, `constructor`
 * and `prototype`) are never read, so they are dropped.
 */
import { EVENT_TYPES, type EventType } from '../../shared/events/domain/event-types.js';
import { truthy } from '../../shared/protocol/request-fields.js';
import {
  MAX_LEVEL_LENGTH,
  MAX_MSG_LENGTH,
  MAX_NAME_LENGTH,
  MAX_URL_LENGTH,
  MAX_WORKER_LENGTH,
  MAX_X_AXIS_LABEL_LENGTH,
  REASON,
  echo,
} from './event-limits.js';
import {
  checkedTimestamp,
  isAbsent,
  isWellFormedId,
  own,
  parseIter,
  parseScalar,
  parseValues,
  textError,
  textRule,
  type RawEvent,
} from './event-fields.js';

export { parseTimestamp } from './event-fields.js';
export { MAX_ENTITY_ID_LENGTH } from './event-limits.js';

export { EVENT_TYPES, type EventType } from '../../shared/events/domain/event-types.js';

const TYPE_SET = new Set<string>(EVENT_TYPES);
/** Longer than any event type even with spaces for underscores: no need to look further. */
const MAX_TYPE_LENGTH = 32;

const METRIC = textRule('metric', MAX_NAME_LENGTH);
const VARIANT = textRule('variant', MAX_NAME_LENGTH);
const KEY = textRule('key', MAX_NAME_LENGTH);
const WORKER = textRule('worker', MAX_WORKER_LENGTH);
const URL_RULE = textRule('url', MAX_URL_LENGTH);
const LEVEL = textRule('level', MAX_LEVEL_LENGTH);
const MSG = textRule('msg', MAX_MSG_LENGTH);
const X_AXIS_LABEL = textRule('x_axis_label', MAX_X_AXIS_LABEL_LENGTH);
// plot_str has no cap of its own: its stored form must fit one event-log message (the session checks).
const PLOT_STR = textRule('plot_str', Number.MAX_SAFE_INTEGER);

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
  /** The request's worker header (X-ClearML-Worker, X-Trains-Worker or gRPC metadata); absent or empty: `<unknown>`. */
  defaultWorker: string | undefined;
  allowLockedDefault: boolean;
}

/** §1.2: the `worker` of events that carry none, from a request without a worker header. */
export const UNKNOWN_WORKER = '<unknown>';

/** A rejection, with the entity named when it is known (request-level rules need it). */
function rejected(
  allowLocked: boolean,
  namespace: 't' | 'm' | undefined,
  entity: string | undefined,
  earlyError: string | undefined,
  lateError: string | undefined,
): NormalizeResult {
  return { event: undefined, namespace, entity, allowLocked, earlyError, lateError };
}

const flag = (value: unknown): boolean => value === true || (value !== false && truthy(value));

/** Step 3: the event type, or undefined when it is not one of the five. */
function eventType(value: unknown): EventType | undefined {
  if (typeof value !== 'string' || value.length > MAX_TYPE_LENGTH) return undefined;
  if (TYPE_SET.has(value)) return value as EventType;
  const replaced = value.replaceAll(' ', '_');
  return TYPE_SET.has(replaced) ? (replaced as EventType) : undefined;
}

/** A field step 9 passed: a string, or absent (null becomes undefined). */
const text = (value: unknown) => (value ?? undefined) as string | undefined;

const typeEcho = (value: unknown): string => echo(typeof value === 'string' ? value.replaceAll(' ', '_') : value);

// Hot path (once per event): results and events are built with every property
// present from the start, so V8 keeps one object shape, and no spreads.
export function normalizeEvent(raw: RawEvent, context: NormalizeContext): NormalizeResult {
  // Step 1: control fields.
  const modelEvent = flag(own(raw, 'model_event', raw.model_event));
  const allowLockedValue = own(raw, 'allow_locked', raw.allow_locked);
  const allowLocked = isAbsent(allowLockedValue) ? context.allowLockedDefault : flag(allowLockedValue);
  let taskValue = own(raw, 'task', raw.task);
  if (modelEvent) {
    const model = own(raw, 'model', raw.model);
    if (!isAbsent(model)) taskValue = model;
  }
  const namespace: 't' | 'm' = modelEvent ? 'm' : 't';

  // Steps 2-6 (the id's form; the store decides the rest).
  const rawType = own(raw, 'type', raw.type);
  if (isAbsent(rawType)) return rejected(allowLocked, undefined, undefined, REASON.missingType, undefined);
  const type = eventType(rawType);
  if (type === undefined) {
    // Cut before replacing: a 10 MB type costs one slice, not a 10 MB copy.
    const shown = typeof rawType === 'string' ? typeEcho(echo(rawType)) : typeEcho(rawType);
    return rejected(allowLocked, undefined, undefined, `Invalid event type ${shown}`, undefined);
  }
  if (type === 'log' && modelEvent) return rejected(allowLocked, undefined, undefined, REASON.logForModel, undefined);
  if (isAbsent(taskValue)) return rejected(allowLocked, undefined, undefined, REASON.missingTask, undefined);
  if (!isWellFormedId(taskValue)) {
    return rejected(
      allowLocked,
      undefined,
      undefined,
      `${modelEvent ? 'Invalid model id' : 'Invalid task id'} ${echo(taskValue)}`,
      undefined,
    );
  }
  const entity = taskValue;

  // Step 7: iteration.
  const iter = parseIter(own(raw, 'iter', raw.iter));
  if (typeof iter === 'string') return rejected(allowLocked, namespace, entity, undefined, iter);

  // Step 8: timestamp (ts is a legacy alias that replaces it).
  const ts = own(raw, 'ts', raw.ts);
  const timestampValue = isAbsent(ts) ? own(raw, 'timestamp', raw.timestamp) : ts;
  let timestamp = context.receivedAt;
  if (!isAbsent(timestampValue)) {
    const checked = checkedTimestamp(timestampValue);
    if (typeof checked === 'string') return rejected(allowLocked, namespace, entity, undefined, checked);
    timestamp = checked;
  }

  // Step 9: string fields, of every event whatever its type (one of another type is checked, then dropped).
  const metric = own(raw, 'metric', raw.metric);
  const variant = own(raw, 'variant', raw.variant);
  const ownWorker = own(raw, 'worker', raw.worker);
  const worker = isAbsent(ownWorker) ? context.defaultWorker || UNKNOWN_WORKER : ownWorker;
  const url = own(raw, 'url', raw.url);
  const key = own(raw, 'key', raw.key);
  const level = own(raw, 'level', raw.level);
  const msg = own(raw, 'msg', raw.msg);
  const plotStr = own(raw, 'plot_str', raw.plot_str);
  const textReason =
    textError(metric, METRIC) ??
    textError(variant, VARIANT) ??
    textError(worker, WORKER) ??
    textError(url, URL_RULE) ??
    textError(key, KEY) ??
    textError(level, LEVEL) ??
    textError(msg, MSG) ??
    textError(plotStr, PLOT_STR);
  if (textReason !== undefined) return rejected(allowLocked, namespace, entity, undefined, textReason);

  const event = checkedEvent(
    type,
    namespace,
    entity,
    allowLocked,
    iter,
    timestamp,
    (metric as string | undefined) || '',
    (variant as string | undefined) || '',
    worker as string,
  );
  switch (type) {
    case 'training_debug_image':
      event.url = text(url);
      event.key = text(key);
      break;
    case 'plot':
      event.plotStr = text(plotStr) ?? '';
      event.skipValidation = truthy(own(raw, 'skip_validation', raw.skip_validation));
      break;
    case 'log':
      event.level = text(level);
      event.msg = text(msg);
      break;
  }
  const reason = completeValues(event, raw);
  if (reason !== undefined) return rejected(allowLocked, namespace, entity, undefined, reason);
  return { event, namespace, entity, allowLocked, earlyError: undefined, lateError: undefined };
}

/**
 * An event that passed steps 1-9, every property present (one object shape
 * for V8), its type's own fields still unset: also how the fused path of
 * plain scalar lines (ingest-session.ts) makes the first event of a series.
 */
export function checkedEvent(
  type: EventType,
  namespace: 't' | 'm',
  entity: string,
  allowLocked: boolean,
  iter: number | undefined,
  timestamp: number,
  metric: string,
  variant: string,
  worker: string,
): NormalizedEvent {
  return {
    type,
    namespace,
    entity,
    allowLocked,
    iter,
    timestamp,
    metric,
    variant,
    worker,
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
}

/** Step 10 (and the scalar's x_axis_label); returns the rejection reason, if any. */
function completeValues(event: NormalizedEvent, raw: RawEvent): string | undefined {
  switch (event.type) {
    case 'training_stats_scalar': {
      const value = parseScalar(own(raw, 'value', raw.value));
      if (value === undefined) return REASON.missingValue;
      if (typeof value === 'string') return value;
      event.value = value;
      // Not validated by the contract (a non-string is ignored), but kept in last_metrics when it is one.
      const label = own(raw, 'x_axis_label', raw.x_axis_label);
      if (typeof label === 'string') {
        const labelReason = textError(label, X_AXIS_LABEL);
        if (labelReason !== undefined) return labelReason;
        event.xAxisLabel = label;
      }
      return undefined;
    }
    case 'training_stats_vector': {
      const named = own(raw, 'values', raw.values);
      const values = parseValues(isAbsent(named) ? own(raw, 'value', raw.value) : named);
      if (values === undefined) return REASON.missingValues;
      if (typeof values === 'string') return values;
      event.values = values;
      return undefined;
    }
    default:
      return undefined;
  }
}
