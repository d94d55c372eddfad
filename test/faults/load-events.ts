/**
 * The events of the fault load: a mix of scalars, logs, plots and debug
 * images, each identifiable on its own. One task per client and scenario;
 * within it every event gets its own sequence number n, which is the
 * iteration of every type (so no two events of a task share an identity)
 * and part of each log line's text (so every line is unique). The key of
 * an event (`scalar:17`, `log:<msg>`) is what the audit counts on both
 * sides: acknowledged and read back.
 */
import { create } from '@bufbuild/protobuf';
import { EventSchema, type Event } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';

export type EventKind = 'scalar' | 'log' | 'plot' | 'image';

/** Kinds in the order they repeat within a batch: mostly scalars and logs, as training jobs send. */
const MIX: readonly EventKind[] = [
  'scalar',
  'log',
  'scalar',
  'log',
  'scalar',
  'plot',
  'scalar',
  'log',
  'scalar',
  'image',
];

export interface LoadBatch {
  task: string;
  keys: string[];
  /** The events as JSON objects (HTTP clients send them as NDJSON lines). */
  events: Record<string, unknown>[];
}

export const logMessage = (task: string, n: number) => `${task} line ${n} of the fault load`;
export const scalarValue = (n: number) => n / 4;
export const imageUrl = (task: string, n: number) => `http://127.0.0.1:1/files/${task}/img-${n}.png`;

/** Events n0 .. n0+count-1 of a task. */
export function loadBatch(task: string, n0: number, count: number, now = Date.now()): LoadBatch {
  const keys: string[] = [];
  const events: Record<string, unknown>[] = [];
  for (let n = n0; n < n0 + count; n++) {
    const kind = MIX[n % MIX.length]!;
    const common = { task, iter: n, timestamp: now };
    switch (kind) {
      case 'scalar':
        events.push({
          type: 'training_stats_scalar',
          ...common,
          metric: 'loss',
          variant: 'train',
          value: scalarValue(n),
        });
        keys.push(`scalar:${n}`);
        break;
      case 'log': {
        const msg = logMessage(task, n);
        events.push({ type: 'log', ...common, level: 'info', msg });
        keys.push(`log:${msg}`);
        break;
      }
      case 'plot':
        events.push({
          type: 'plot',
          ...common,
          metric: 'confusion',
          variant: 'val',
          plot_str: JSON.stringify({
            data: [
              {
                type: 'heatmap',
                z: [
                  [n, 1],
                  [2, n],
                ],
              },
            ],
            layout: { title: `n ${n}` },
          }),
        });
        keys.push(`plot:${n}`);
        break;
      case 'image':
        events.push({
          type: 'training_debug_image',
          ...common,
          metric: 'samples',
          variant: 'val',
          key: `samples/val/${n}.png`,
          url: imageUrl(task, n),
        });
        keys.push(`image:${n}`);
        break;
    }
  }
  return { task, keys, events };
}

/** The same events as protobuf messages (gRPC clients). */
export function protoEvents(batch: LoadBatch): Event[] {
  return batch.events.map((e) =>
    create(EventSchema, {
      type: e.type as string,
      task: e.task as string,
      iter: BigInt(e.iter as number),
      timestamp: { case: 'timestampMs', value: e.timestamp as number },
      metric: e.metric as string | undefined,
      variant: e.variant as string | undefined,
      value: e.value as number | undefined,
      msg: e.msg as string | undefined,
      level: e.level as string | undefined,
      url: e.url as string | undefined,
      key: e.key as string | undefined,
      plotStr: e.plot_str as string | undefined,
    }),
  );
}

/**
 * The key of an event read back through the API, or a reason why it is not
 * the event that was sent (a changed value is as good as lost).
 */
export function keyOfStored(task: string, event: Record<string, unknown>): { key: string } | { wrong: string } {
  const n = event.iter as number;
  switch (event.type) {
    case 'training_stats_scalar':
      return event.value === scalarValue(n)
        ? { key: `scalar:${n}` }
        : { wrong: `scalar:${n} has value ${String(event.value)}` };
    case 'log':
      return { key: `log:${String(event.msg)}` };
    case 'plot':
      return typeof event.plot_str === 'string' && event.plot_str.includes(`"n ${n}"`)
        ? { key: `plot:${n}` }
        : { wrong: `plot:${n} has another figure` };
    case 'training_debug_image':
      return event.url === imageUrl(task, n)
        ? { key: `image:${n}` }
        : { wrong: `image:${n} has url ${String(event.url)}` };
    default:
      return { wrong: `unexpected event type ${String(event.type)}` };
  }
}
