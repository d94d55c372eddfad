/**
 * Scalar rows (SELECT * FROM "scalar") written straight as the JSON text of
 * their stored events: byte for byte what JSON.stringify writes for the
 * object InfluxRowReader.event builds (same members, same order, members
 * whose value is undefined left out), without building that object. For
 * get_task_events' pages of scalars, where the events are most of the
 * answer: for 1,000 scalars, objects, JSON.stringify and encoding the text
 * cost ~1.3 ms, the text written into the answer's bytes ~0.6 ms
 * (docs/performance.md, "Scalar pages as text"). The object is still there
 * for whoever asks (`event`), built from the row when asked.
 */
import { EVENT_TYPE_OF } from '../../../shared/events/storage-layout.js';
import { safeIntegerText } from '../common/integer-text.js';
import type { InfluxSeries } from '../../../shared/stores/influx-store.js';
import { boundedMemo, InfluxRowReader, type SequencedEvent, type StoredEvent } from './stored-events.js';

/** A value as JSON.stringify writes it inside an object; undefined where it leaves the member out. */
function jsonValue(value: unknown): string | undefined {
  if (typeof value === 'number') {
    // Timestamps (epoch ms) are integers beyond 32 bits, which String formats slowly.
    if (Number.isSafeInteger(value)) return safeIntegerText(value);
    return Number.isFinite(value) ? String(value) : 'null';
  }
  return JSON.stringify(value);
}

const member = (name: string, json: string | undefined): string => (json === undefined ? '' : `,"${name}":${json}`);

class ScalarRow implements SequencedEvent {
  private decoded: StoredEvent | undefined;

  constructor(
    private readonly reader: InfluxRowReader,
    private readonly row: unknown[],
    readonly json: string,
    readonly iter: number | undefined,
    readonly timestamp: number,
    readonly seq: number,
  ) {}

  get event(): StoredEvent {
    return (this.decoded ??= this.reader.event(this.row));
  }
}

export function scalarEventRows(series: InfluxSeries): SequencedEvent[] {
  const reader = new InfluxRowReader(series, 'scalar');
  // Names and workers repeat over the rows (one per series): each is written as JSON once.
  const tagJson = boundedMemo((stored: string | undefined) => JSON.stringify(reader.decodeTag(stored ?? '')));
  const valueJson = boundedMemo(jsonValue);
  const isoJson = boundedMemo((at: number) => JSON.stringify(reader.isoOf(at)));
  const head = `{"type":${JSON.stringify(EVENT_TYPE_OF.scalar)},"task":`;
  return series.values.map((row) => {
    const iter = reader.iter(row);
    const timestamp = reader.field(row, 'ts');
    const json =
      `${head}${tagJson(reader.tag(row, 'e'))}${member('timestamp', jsonValue(timestamp))}` +
      `,"metric":${tagJson(reader.tag(row, 'm'))},"variant":${tagJson(reader.tag(row, 'v'))}` +
      `${member('worker', valueJson(reader.field(row, 'w')))},"model_event":${reader.tag(row, 'n') === 'm'}` +
      `,"@timestamp":${isoJson(reader.field(row, 'at') as number)}` +
      `${iter === undefined ? '' : `,"iter":${iter}`}${member('value', jsonValue(reader.field(row, 'y')))}}`;
    return new ScalarRow(reader, row, json, iter, timestamp as number, (reader.field(row, 'q') as number) ?? 0);
  });
}
