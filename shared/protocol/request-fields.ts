/**
 * Request-field rules shared by every operation (protocol.md §3.3, §3.4),
 * as zod schemas. Each builder takes the field name it validates so that the
 * messages name it exactly as ClearML does; `requestSchema` wires the names.
 *
 *   const schema = requestSchema({ task: str({ required: true }), batch_size: int({ min: 1 }) });
 *
 * Validation failures become 400/12 `Validation error (<detail>)` with the
 * detail lower-cased (the whole detail, echoed value included).
 *
 * Every field accepts any value and checks it itself (ClearML's messages and
 * coercions), so zod alone cannot describe it: each builder also records,
 * from the same options, what a client should send (`fieldDocs`), which the
 * OpenAPI document reads (request-json-schema.ts).
 */
import { z } from 'zod';
import { apiError, type ApiError } from '../errors/error-catalogue.js';
import { echoText, pyRepr } from './python-repr.js';

/** A field builder: given the field's name, the zod schema that checks and converts it. */
export type FieldBuilder<T> = (name: string) => z.ZodType<T>;

/** What a field documents: JSON Schema keywords of what a client sends, and whether it must be sent. */
export interface FieldDoc {
  readonly json: Readonly<Record<string, unknown>>;
  readonly required?: boolean;
  /** Lists: the schema of each item, documented in turn. */
  readonly items?: z.ZodType;
  /** Nested objects: the object schema of the members, documented in turn. */
  readonly members?: z.ZodType;
}

/** The documentation of every field schema the builders made (a WeakMap: nothing is kept alive by it). */
export const fieldDocs = new WeakMap<object, FieldDoc>();

/** Records `doc` for `schema` and returns the schema. */
export function documented<T extends z.ZodType>(schema: T, doc: FieldDoc): T {
  fieldDocs.set(schema, doc);
  return schema;
}

/** JSON Schema keywords whose value is set (`{minimum: undefined}` is left out). */
function keywords(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}

type Ctx = z.RefinementCtx;

function fail(ctx: Ctx, detail: string): typeof z.NEVER {
  ctx.addIssue({ code: 'custom', message: detail });
  return z.NEVER;
}

const isAbsent = (v: unknown): v is null | undefined => v === undefined || v === null;

function required(ctx: Ctx, name: string, value: null | undefined): typeof z.NEVER {
  return fail(ctx, value === null ? 'field is required!' : `error for field '${name}'. field is required!`);
}

export function wrongType(expected: string, value: unknown): string {
  return `value is wrong, expected type "${expected}" ${pyRepr(value)}`;
}

const INT_STRING = /^\s*[+-]?\d+\s*$/;

/**
 * Integer conversion of protocol.md §3.3: truncation, numeric strings; else
 * an error detail. Python's int() has no bound, but no integer field here
 * means anything beyond what a double holds exactly, so values outside the
 * safe-integer range are refused as above or below it (docs/protocol.md).
 */
export function toInteger(value: unknown): { ok: true; value: number } | { ok: false; detail: string } {
  let converted: number;
  if (typeof value === 'number' && Number.isFinite(value)) converted = Math.trunc(value) || 0;
  else if (typeof value === 'string') {
    if (!INT_STRING.test(value))
      return { ok: false, detail: `invalid literal for int() with base 10: '${echoText(value)}'` };
    converted = Number.parseInt(value.trim(), 10);
  } else return { ok: false, detail: wrongType('int', value) };
  if (converted > Number.MAX_SAFE_INTEGER)
    return { ok: false, detail: `'${echoText(String(value))}' is bigger than maximum ('${Number.MAX_SAFE_INTEGER}').` };
  if (converted < Number.MIN_SAFE_INTEGER)
    return { ok: false, detail: `'${echoText(String(value))}' is lower than minimum ('${Number.MIN_SAFE_INTEGER}').` };
  return { ok: true, value: converted };
}

/** Python truthiness, which ClearML applies to every boolean field (`"false"` is true). */
export function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (value === null || value === undefined) return false;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

interface IntOptions {
  required?: boolean;
  min?: number;
  max?: number;
}

export function int(options: IntOptions & { default: number }): FieldBuilder<number>;
export function int(options: IntOptions & { required: true }): FieldBuilder<number>;
export function int(options?: IntOptions): FieldBuilder<number | undefined>;
export function int(options: IntOptions & { default?: number } = {}): FieldBuilder<number | undefined> {
  const doc: FieldDoc = {
    json: keywords({ type: 'integer', minimum: options.min, maximum: options.max, default: options.default }),
    required: options.required,
  };
  return (name) =>
    documented(
      z
        .unknown()
        .optional()
        .transform((value, ctx) => {
          if (isAbsent(value)) return options.required ? required(ctx, name, value) : options.default;
          const converted = toInteger(value);
          if (!converted.ok) return fail(ctx, converted.detail);
          if (options.min !== undefined && converted.value < options.min) {
            return fail(ctx, `'${converted.value}' is lower than minimum ('${options.min}').`);
          }
          if (options.max !== undefined && converted.value > options.max) {
            return fail(ctx, `'${converted.value}' is bigger than maximum ('${options.max}').`);
          }
          return converted.value;
        }),
      doc,
    );
}

export function bool(options: { default: boolean }): FieldBuilder<boolean>;
export function bool(): FieldBuilder<boolean | undefined>;
export function bool(options: { default?: boolean } = {}): FieldBuilder<boolean | undefined> {
  const doc: FieldDoc = { json: keywords({ type: 'boolean', default: options.default }) };
  return () =>
    documented(
      z
        .unknown()
        .optional()
        .transform((value) => (isAbsent(value) ? options.default : truthy(value))),
      doc,
    );
}

interface StrOptions {
  required?: boolean;
  minLength?: number;
}

export function str(options: StrOptions & { required: true }): FieldBuilder<string>;
export function str(options: StrOptions & { default: string }): FieldBuilder<string>;
export function str(options?: StrOptions): FieldBuilder<string | undefined>;
export function str(options: StrOptions & { default?: string } = {}): FieldBuilder<string | undefined> {
  const doc: FieldDoc = {
    json: keywords({ type: 'string', minLength: options.minLength, default: options.default }),
    required: options.required,
  };
  return (name) =>
    documented(
      z
        .unknown()
        .optional()
        .transform((value, ctx) => {
          if (isAbsent(value)) return options.required ? required(ctx, name, value) : options.default;
          if (typeof value !== 'string') return fail(ctx, wrongType('str', value));
          if (options.minLength !== undefined && value.length < options.minLength) {
            return fail(ctx, `value '${value}' length is lower than allowed minimum '${options.minLength}'.`);
          }
          return value;
        }),
      doc,
    );
}

/** An enum field; `typeName` is the schema's enum name used in messages (`logorderenum`, `scalarkeyenum`, ...). */
export function enumOf<const T extends string>(
  typeName: string,
  values: readonly T[],
  options: { required?: boolean; default?: T } = {},
): FieldBuilder<T | undefined> {
  const allowed = new Set<string>(values);
  const doc: FieldDoc = {
    json: keywords({ type: 'string', enum: [...values], default: options.default }),
    required: options.required,
  };
  return (name) =>
    documented(
      z
        .unknown()
        .optional()
        .transform((value, ctx) => {
          if (isAbsent(value)) return options.required ? required(ctx, name, value) : options.default;
          if (typeof value !== 'string' || !allowed.has(value)) return fail(ctx, wrongType(typeName, value));
          return value as T;
        }),
      doc,
    );
}

interface ListOptions {
  required?: boolean;
  minItems?: number;
  maxItems?: number;
}

/** A list whose items are checked by `item` (itself a builder, named like the list). */
export function list<T>(item: FieldBuilder<T>, options: ListOptions = {}): FieldBuilder<T[] | undefined> {
  return (name) => {
    const itemSchema = item(name);
    const doc: FieldDoc = {
      json: keywords({ type: 'array', minItems: options.minItems, maxItems: options.maxItems }),
      required: options.required,
      items: itemSchema,
    };
    return documented(
      z
        .unknown()
        .optional()
        .transform((value, ctx) => {
          if (isAbsent(value)) return options.required ? required(ctx, name, value) : undefined;
          if (!Array.isArray(value)) return fail(ctx, wrongType('list', value));
          if (options.minItems !== undefined && value.length < options.minItems) {
            return fail(ctx, `value '${pyRepr(value)}' length is lower than allowed minimum '${options.minItems}'.`);
          }
          if (options.maxItems !== undefined && value.length > options.maxItems) {
            return fail(ctx, `value '${pyRepr(value)}' length is bigger than allowed maximum '${options.maxItems}'.`);
          }
          const out: T[] = [];
          for (const element of value) {
            const parsed = itemSchema.safeParse(element);
            if (!parsed.success) return fail(ctx, parsed.error.issues[0]?.message ?? 'invalid item');
            out.push(parsed.data);
          }
          return out;
        }),
      doc,
    );
  };
}

/** Items of an array-of-string field: `all items must be instances of "str", and not "<type>".` */
export function strItem(): FieldBuilder<string> {
  return () =>
    documented(
      z
        .unknown()
        .optional()
        .transform((value, ctx) => {
          if (typeof value !== 'string')
            return fail(ctx, `all items must be instances of "str", and not "${pyTypeOf(value)}".`);
          return value;
        }),
      { json: { type: 'string' } },
    );
}

export function strList(options: ListOptions = {}): FieldBuilder<string[] | undefined> {
  return list(strItem(), options);
}

function pyTypeOf(value: unknown): string {
  if (value === null) return 'nonetype';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  return 'dict';
}

/** Any JSON value, unchecked (fields whose rules live in the operation). */
export function raw(): FieldBuilder<unknown> {
  return () => z.unknown().optional();
}

type Shape = Record<string, FieldBuilder<unknown>>;
type Output<S extends Shape> = { [K in keyof S]: S[K] extends FieldBuilder<infer T> ? T : never };

/** A nested object field (metric_variants and the like). */
export function obj<S extends Shape>(
  shape: S,
  options: { required?: boolean } = {},
): FieldBuilder<Output<S> | undefined> {
  return (name) => {
    const inner = requestSchema(shape);
    const doc: FieldDoc = { json: {}, required: options.required, members: inner };
    return documented(
      z
        .unknown()
        .optional()
        .transform((value, ctx) => {
          if (isAbsent(value)) return options.required ? required(ctx, name, value) : undefined;
          if (typeof value !== 'object' || Array.isArray(value)) return fail(ctx, wrongType('dict', value));
          const parsed = inner.safeParse(value);
          if (!parsed.success) return fail(ctx, parsed.error.issues[0]?.message ?? 'invalid object');
          return parsed.data;
        }),
      doc,
    );
  };
}

/** The request model of an operation: unknown fields are ignored (protocol.md §3.3). */
export function requestSchema<S extends Shape>(shape: S): z.ZodType<Output<S>> {
  const named: Record<string, z.ZodType> = {};
  for (const [key, builder] of Object.entries(shape)) named[key] = builder(key);
  return z.object(named) as unknown as z.ZodType<Output<S>>;
}

/** Turns a zod failure into the 400/12 envelope error, lower-casing the detail. */
export function validationErrorFrom(error: z.ZodError): ApiError {
  const detail = error.issues[0]?.message ?? 'invalid request';
  return apiError('validation_error', detail.toLowerCase());
}

/** Parses call data with an operation's schema, throwing the contract's 400/12 on failure. */
export function parseRequest<T>(schema: z.ZodType<T>, callData: Record<string, unknown>): T {
  const result = schema.safeParse(callData);
  if (!result.success) throw validationErrorFrom(result.error);
  return result.data;
}
