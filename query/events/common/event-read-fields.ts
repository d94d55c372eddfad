/**
 * Request fields shared by the event reads (events.md §0.3, §0.5), built on
 * shared/protocol/request-fields.ts so messages stay ClearML's.
 */
import { EVENT_TYPES, type EventType } from '../../../shared/events/domain/event-types.js';
import { z } from 'zod';
import {
  documented,
  enumOf,
  fieldDocs,
  list,
  obj,
  requestSchema,
  str,
  strList,
  type FieldBuilder,
} from '../../../shared/protocol/request-fields.js';

export { EVENT_TYPES, type EventType } from '../../../shared/events/domain/event-types.js';

/** `event_type` (enum name `eventtype` in messages); absent means all types. */
export const eventTypeField = (): FieldBuilder<EventType | undefined> => enumOf('eventtype', EVENT_TYPES);

export const SCALAR_KEYS = ['iter', 'timestamp', 'iso_time'] as const;
export type ScalarKey = (typeof SCALAR_KEYS)[number];

/** `key` of the scalar reads (enum name `scalarkeyenum`), default `iter`. */
export const scalarKeyField = (): FieldBuilder<ScalarKey> =>
  enumOf('scalarkeyenum', SCALAR_KEYS, { default: 'iter' }) as FieldBuilder<ScalarKey>;

export interface MetricVariants {
  metric: string;
  variants?: string[];
}

/** One `metric_variants` object. */
export const metricVariantsField = (options: { required?: boolean } = {}): FieldBuilder<MetricVariants | undefined> =>
  obj({ metric: str({ required: true }), variants: strList() }, options) as FieldBuilder<MetricVariants | undefined>;

/** A list of `metric_variants` (the `metrics` filter). */
export const metricsFilterField = (): FieldBuilder<MetricVariants[] | undefined> =>
  list(metricVariantsField() as FieldBuilder<MetricVariants>);

/** `task`, the alias of `tasks` read when `tasks` is absent (events.md §13 item 1): checked by the operation. */
export const taskAliasField = (): FieldBuilder<unknown> => () =>
  documented(z.unknown().optional(), {
    json: {
      description: 'Alias of `tasks`, read when `tasks` is absent',
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    },
  });

/** Documents a request that needs `tasks` or its alias `task`. */
export function needsTasksOrTask<T extends z.ZodType>(schema: T): T {
  return documented(schema, { json: { anyOf: [{ required: ['tasks'] }, { required: ['task'] }] } });
}

type Shape = Record<string, FieldBuilder<unknown>>;
type Output<S extends Shape> = { [K in keyof S]: S[K] extends FieldBuilder<infer T> ? T : never };

/**
 * A request with the entity list `tasks` (events.md §13 item 1): `task` is
 * accepted as an alias when `tasks` is absent (a string counting as a list
 * of one); messages name the field `tasks`.
 */
export function withTasksList<S extends Shape>(
  shape: S,
  options: { maxItems?: number } = {},
): z.ZodType<Omit<Output<S>, 'tasks' | 'task'> & { tasks: string[] }> {
  const tasksField = strList({ required: true, minItems: 1, maxItems: options.maxItems })('tasks');
  // Both are read by the transform below; documented as what a client sends (either may be left out when the other is sent).
  const tasks: FieldBuilder<unknown> = () =>
    documented(z.unknown().optional(), { ...fieldDocs.get(tasksField)!, required: false });
  const request = requestSchema({ ...shape, tasks, task: taskAliasField() }).transform((request, ctx) => {
    const { tasks, task, ...rest } = request as Record<string, unknown>;
    const given = tasks === undefined || tasks === null ? (typeof task === 'string' ? [task] : task) : tasks;
    const parsed = tasksField.safeParse(given === undefined && tasks === null ? null : given);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]?.message ?? 'invalid tasks' });
      return z.NEVER;
    }
    return { ...rest, tasks: parsed.data as string[] } as Omit<Output<S>, 'tasks' | 'task'> & { tasks: string[] };
  });
  return needsTasksOrTask(request) as unknown as z.ZodType<Omit<Output<S>, 'tasks' | 'task'> & { tasks: string[] }>;
}

/** Distinct values in first-appearance order. */
export function distinct<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
