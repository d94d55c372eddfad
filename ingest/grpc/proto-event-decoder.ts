/**
 * Turns a protobuf `Event` into the raw event object a JSON client would have
 * sent (events.md §1.2 field names), so that IngestSession.add is the one
 * place where events are checked, whatever the transport.
 */
import type { Event } from './gen/clearml/events/v1/events_ingest_pb.js';

type RawEvent = Record<string, unknown>;

/**
 * Proto3 `optional` fields copied as they are when set: absence must stay
 * absence, because the contract's defaults and errors differ between a
 * missing field and `""`, `0` or `false`. A static table rather than
 * descriptor reflection: this runs once per event on the ingest hot path.
 */
const OPTIONAL_FIELDS = [
  ['type', 'type'],
  ['task', 'task'],
  ['model', 'model'],
  ['modelEvent', 'model_event'],
  ['allowLocked', 'allow_locked'],
  ['metric', 'metric'],
  ['variant', 'variant'],
  ['worker', 'worker'],
  ['value', 'value'],
  ['xAxisLabel', 'x_axis_label'],
  ['url', 'url'],
  ['key', 'key'],
  ['plotStr', 'plot_str'],
  ['skipValidation', 'skip_validation'],
  ['level', 'level'],
  ['msg', 'msg'],
] as const satisfies ReadonlyArray<readonly [keyof Event, string]>;

export function decodeProtoEvent(event: Event): RawEvent {
  const raw: RawEvent = {};
  for (const [property, jsonName] of OPTIONAL_FIELDS) {
    const value = event[property];
    if (value !== undefined) raw[jsonName] = value;
  }
  // The validator computes iterations in doubles, as for JSON input; int64
  // values beyond 2^53 round (2^63 - 1 becomes 2^63 and is rejected there,
  // exactly as the same number sent as JSON).
  if (event.iter !== undefined) raw.iter = Number(event.iter);
  if (event.timestamp.case !== undefined) raw.timestamp = event.timestamp.value;
  // An empty repeated field is indistinguishable from an unsent one on the
  // wire; `values_present` says an empty list was meant.
  if (event.values.length > 0 || event.valuesPresent) raw.values = event.values;
  return raw;
}
