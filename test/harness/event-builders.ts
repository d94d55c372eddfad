/**
 * The events tests send, as the SDK sends them (events.md §1): one builder
 * per event type, shared by every test. The positional arguments are what
 * names an event (task, metric, variant, iteration); anything a test cares
 * about beyond that goes in `extra`, which overrides the defaults. An
 * `undefined` in `extra` is dropped by JSON, so it removes a default field
 * from what is sent.
 */

/** An event in the API's form (`task` names the task or, with model_event, the model). */
export interface TestEvent {
  type: string;
  task: string;
  [field: string]: unknown;
}

/** 2024-06-10: the timestamps tests give events when the time of day must not matter. */
export const T0 = 1_718_000_000_000;

const iterField = (iter: number | undefined) => (iter === undefined ? {} : { iter });

export const scalar = (
  task: string,
  metric: string,
  variant: string,
  iter: number | undefined,
  value: number,
  extra: object = {},
): TestEvent => ({
  type: 'training_stats_scalar',
  task,
  metric,
  variant,
  value,
  ...iterField(iter),
  ...extra,
});

export const vector = (
  task: string,
  metric: string,
  variant: string,
  iter: number | undefined,
  values: number[],
  extra: object = {},
): TestEvent => ({
  type: 'training_stats_vector',
  task,
  metric,
  variant,
  values,
  ...iterField(iter),
  ...extra,
});

/** A log line; `timestamp` undefined leaves the time to the service (the request's arrival). */
export const log = (task: string, timestamp: number | undefined, msg: string, extra: object = {}): TestEvent => ({
  type: 'log',
  task,
  ...(timestamp === undefined ? {} : { timestamp }),
  level: 'info',
  msg,
  ...extra,
});

/** `n` log lines `line 0`, `line 1`, … a millisecond apart from `from`. */
export const logLines = (task: string, n: number, from = T0, extra: object = {}): TestEvent[] =>
  Array.from({ length: n }, (_, i) => log(task, from + i, `line ${i}`, extra));

/** A plot whose plot_str names it (metric/variant@iter), reported at T0 + iter. */
export const plot = (
  task: string,
  metric: string,
  variant: string,
  iter: number | undefined,
  extra: object = {},
): TestEvent => ({
  type: 'plot',
  task,
  metric,
  variant,
  ...iterField(iter),
  timestamp: T0 + (iter ?? 0),
  plot_str: JSON.stringify({ data: [{ x: [iter ?? -1] }], layout: { title: `${metric}/${variant}@${iter}` } }),
  ...extra,
});

/** A debug image; without `url` in `extra` it is stored but never shown (events.md §8). */
export const image = (
  task: string,
  metric: string,
  variant: string,
  iter: number | undefined,
  extra: object = {},
): TestEvent => ({
  type: 'training_debug_image',
  task,
  metric,
  variant,
  ...iterField(iter),
  ...extra,
});

/** The events.add_batch body (NDJSON) of these events. */
export const ndjson = (events: readonly unknown[]): string => events.map((e) => JSON.stringify(e)).join('\n');
