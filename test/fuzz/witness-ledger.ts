/**
 * Well-formed events of the witness tasks and their acknowledgements. Each
 * event is unique (its own variant, iteration, timestamp or message), so a
 * read can tell whether it is there exactly once. An event counts as
 * acknowledged when the request carrying it was answered 200 (or gRPC OK)
 * with every event counted in `added`; a well-formed sibling inside a
 * hostile batch counts when `added` covers the siblings and no rejection
 * reason names its task (the answer does not say which events were counted).
 */
import type { CompanyKey, World } from './fuzz-world.js';

export type WitnessType = 'scalar' | 'log' | 'plot' | 'image';

export interface WitnessEvent {
  n: number;
  company: CompanyKey;
  task: string;
  type: WitnessType;
  /** How it was sent (http-lines, http-add, grpc-add, grpc-batch, grpc-stream, sibling-http, sibling-grpc). */
  via: string;
  /** The index of the request that carried it (`--replay` sends it again). */
  request?: number;
  acked: boolean;
}

const BASE_TIMESTAMP = Date.UTC(2024, 0, 1);
const TYPES: WitnessType[] = ['scalar', 'log', 'plot', 'image'];

export class WitnessLedger {
  private readonly events: WitnessEvent[] = [];
  private next = 0;

  constructor(private readonly world: World) {}

  /** A new well-formed event of the company's witness task `witness` (type chosen by `typeIndex`). */
  make(company: CompanyKey, witness: number, typeIndex: number, via: string): WitnessEvent {
    const tasks = this.world.companies[company].witnesses;
    const event: WitnessEvent = {
      n: this.next++,
      company,
      task: tasks[witness % tasks.length]!,
      type: TYPES[typeIndex % TYPES.length]!,
      via,
      acked: false,
    };
    this.events.push(event);
    return event;
  }

  markAcked(events: WitnessEvent[]): void {
    for (const event of events) event.acked = true;
  }

  all(): readonly WitnessEvent[] {
    return this.events;
  }

  acked(): WitnessEvent[] {
    return this.events.filter((e) => e.acked);
  }

  marker(company: CompanyKey): string {
    return this.world.companies[company].marker;
  }

  /** The event as a JSON client sends it (the SDK's fields, events.md §12.1). */
  json(e: WitnessEvent): Record<string, unknown> {
    const m = this.marker(e.company);
    const common = { task: e.task, model_event: false, allow_locked: false };
    switch (e.type) {
      case 'scalar':
        return {
          ...common,
          type: 'training_stats_scalar',
          iter: e.n,
          metric: `${m}s`,
          variant: `v${e.n}`,
          value: e.n + 0.5,
          timestamp: BASE_TIMESTAMP + e.n,
        };
      case 'log':
        return { ...common, type: 'log', level: 'info', msg: `${m} l${e.n}`, timestamp: BASE_TIMESTAMP + e.n };
      case 'plot':
        return {
          ...common,
          type: 'plot',
          iter: e.n,
          metric: `${m}p`,
          variant: `v${e.n}`,
          plot_str: `{"data": [{"y": [${e.n}]}], "layout": {}}`,
          timestamp: BASE_TIMESTAMP + e.n,
        };
      case 'image':
        return {
          ...common,
          type: 'training_debug_image',
          iter: e.n,
          metric: `${m}i`,
          variant: `v${e.n}`,
          key: `k${e.n}`,
          url: `https://files.example.com/${m}/${e.n}.png`,
          timestamp: BASE_TIMESTAMP + e.n,
        };
    }
  }

  /** The same event as a protobuf Event init (docs/grpc.md field names). */
  proto(e: WitnessEvent): Record<string, unknown> {
    const json = this.json(e);
    const out: Record<string, unknown> = {
      type: json.type,
      task: json.task,
      modelEvent: false,
      allowLocked: false,
      timestamp: { case: 'timestampMs', value: json.timestamp },
    };
    if (json.iter !== undefined) out.iter = BigInt(json.iter as number);
    for (const [from, to] of [
      ['metric', 'metric'],
      ['variant', 'variant'],
      ['value', 'value'],
      ['msg', 'msg'],
      ['level', 'level'],
      ['plot_str', 'plotStr'],
      ['key', 'key'],
      ['url', 'url'],
    ] as const) {
      if (json[from] !== undefined) out[to] = json[from];
    }
    return out;
  }
}

/** Whether an add answer acknowledges `events` (see the file comment). */
export function answerAcknowledges(
  answer: { added?: unknown; errors?: unknown; errors_info?: unknown; errorsInfo?: unknown },
  events: WitnessEvent[],
  total: number,
): boolean {
  const added = Number(answer.added ?? 0);
  const errors = Number(answer.errors ?? 0);
  if (added === total && errors === 0) return true;
  if (added < events.length) return false;
  const info = (answer.errors_info ?? answer.errorsInfo ?? {}) as Record<string, unknown>;
  const reasons = info instanceof Map ? [...info.keys()] : Object.keys(info);
  return !events.some((e) => reasons.some((reason) => reason.includes(e.task)));
}
