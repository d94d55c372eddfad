// events.md §1.3 per-event checks and the store limits of docs/ingest.md ("Per-event limits"),
// one row per rule: f(event, expected reason) with undefined for an accepted event.
import { describe, expect, it } from 'vitest';
import { normalizeEvent, type NormalizeResult } from './event-normalizer.js';

const RECEIVED_AT = 1_718_000_000_000;
const context = { receivedAt: RECEIVED_AT, defaultWorker: 'node-7', allowLockedDefault: false };

const reasonOf = (result: NormalizeResult) => result.earlyError ?? result.lateError;

/** The row, for the failure message (deep values do not stringify). */
function label(raw: Record<string, unknown>): string {
  try {
    return JSON.stringify(raw).slice(0, 200);
  } catch {
    return Object.keys(raw).join(',');
  }
}

function f(raw: Record<string, unknown>, expected: string | undefined, ctx = context): void {
  const result = normalizeEvent(raw, ctx);
  expect(reasonOf(result), label(raw)).toBe(expected);
  expect(result.event === undefined).toBe(expected !== undefined);
}

/** The accepted event's normalised form. */
function accepted(raw: Record<string, unknown>, ctx = context) {
  const result = normalizeEvent(raw, ctx);
  expect(reasonOf(result)).toBeUndefined();
  return result.event!;
}

const deepArray = (depth: number): unknown => {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const deepObject = (depth: number): unknown => {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

const log = (fields: Record<string, unknown> = {}) => ({ type: 'log', task: 't1', ...fields });
const scalar = (fields: Record<string, unknown> = {}) => ({ type: 'training_stats_scalar', task: 't1', value: 1, ...fields });

describe('steps 1-6: type, task, entity id (early checks)', () => {
  it('type', () => {
    f({ task: 't1' }, "Event must have a 'type' field");
    f({ type: null, task: 't1' }, "Event must have a 'type' field");
    f({ type: 'nope', task: 't1' }, 'Invalid event type nope');
    f({ type: 'a b c', task: 't1' }, 'Invalid event type a_b_c');
    f({ type: 'training stats scalar', task: 't1', value: 1 }, undefined);
    f({ type: 5, task: 't1' }, 'Invalid event type 5');
    f({ type: true, task: 't1' }, 'Invalid event type True');
    f({ type: ['log'], task: 't1' }, 'Invalid event type <list>');
    f({ type: { log: 1 }, task: 't1' }, 'Invalid event type <dict>');
    f({ type: deepArray(10_000), task: 't1' }, 'Invalid event type <list>');
    f({ type: 'x'.repeat(10_000_000), task: 't1' }, `Invalid event type ${'x'.repeat(256)}…`);
    f({ type: 'x'.repeat(256), task: 't1' }, `Invalid event type ${'x'.repeat(256)}`);
  });

  it('log events of models', () => {
    f({ type: 'log', task: 't1', model_event: true }, 'Task log events are not supported for models');
    f({ type: 'log', task: 't1', model_event: 'yes' }, 'Task log events are not supported for models');
  });

  it('task present', () => {
    f({ type: 'log' }, "Event must have a 'task' field");
    f({ type: 'log', task: null }, "Event must have a 'task' field");
    f({ type: 'plot', model: 'm1', model_event: false }, "Event must have a 'task' field");
  });

  it('task id: non-empty, at most 128 characters of [A-Za-z0-9_.-]', () => {
    f(log({ task: '' }), 'Invalid task id ');
    f(log({ task: 'a'.repeat(128) }), undefined);
    f(log({ task: 'a'.repeat(129) }), `Invalid task id ${'a'.repeat(129)}`);
    f(log({ task: 'x'.repeat(10_000_000) }), `Invalid task id ${'x'.repeat(256)}…`);
    f(log({ task: 'Ab_9.-z' }), undefined);
    f(log({ task: '8f1c2d0b5e57a1c2b3d4e5f60718293a' }), undefined);
    for (const id of ['a:b', 'a b', 'a/b', 'a*', 'é', '\u0000', 'a\n', '{x}', 'a"b', '\ud800', '😀']) f(log({ task: id }), `Invalid task id ${id}`);
    f(log({ task: 5 }), 'Invalid task id 5');
    f(log({ task: ['t1'] }), 'Invalid task id <list>');
    f(log({ task: deepArray(10_000) }), 'Invalid task id <list>');
    f(log({ task: deepObject(10_000) }), 'Invalid task id <dict>');
    f(log({ task: false }), 'Invalid task id False');
  });

  it('model events: model replaces task, and model ids follow the same rule', () => {
    const event = accepted({ type: 'plot', task: 'ignored', model: 'm1', model_event: true });
    expect(event).toMatchObject({ entity: 'm1', namespace: 'm' });
    f({ type: 'plot', task: 5, model_event: 1 }, 'Invalid model id 5');
    f({ type: 'plot', task: 't1', model: 'a:b', model_event: true }, 'Invalid model id a:b');
    f({ type: 'plot', task: 'a'.repeat(300), model_event: true }, `Invalid model id ${'a'.repeat(256)}…`);
  });
});

describe('step 7: iter', () => {
  it.each([
    [120, 120],
    [1.9, 1],
    [-1.9, -1],
    [-0, 0],
    ['-3', -3],
    [' 12 ', 12],
    ['+7', 7],
    [null, undefined],
    [-2_147_483_648, -2_147_483_648],
    [2 ** 63 - 1024, 2 ** 63 - 1024],
    [-9.2e18, -9.2e18],
  ])('%j is iteration %j', (iter, expected) => {
    const event = accepted(log({ iter }));
    expect(Object.is(event.iter, expected)).toBe(true);
  });

  it('rejections', () => {
    for (const iter of ['abc', '1e3', '1.5', '', true, {}, [1], deepArray(10_000), '9'.repeat(101), `${'1'.repeat(60_000)}x`]) {
      f(log({ iter }), "Invalid value for field 'iter'");
    }
    for (const iter of [2 ** 63, 1e19, -1e19, 1e300, Number.POSITIVE_INFINITY, '9223372036854775808']) {
      f(log({ iter }), 'Iteration number should not exceed 9223372036854775807');
    }
    // Below this a point's time reads back as "no iteration" (the sentinel of InfluxDB's smallest time).
    f(log({ iter: -9.21e18 }), 'Iteration number should not be below -9200000000000000000');
    f(log({ iter: -(2 ** 63) }), 'Iteration number should not be below -9200000000000000000');
  });
});

describe('step 8: timestamp', () => {
  it.each([
    [1_718_000_000_123, 1_718_000_000_123],
    [1_718_000_000_123.9, 1_718_000_000_123],
    ['1.718e12', 1_718_000_000_000],
    [' 1718000000123 ', 1_718_000_000_123],
    ['2024-06-10T06:13:20.200Z', 1_718_000_000_200],
    ['2024-06-10 06:13:20.200', 1_718_000_000_200],
    ['2024-06-10T08:13:20.200+02:00', 1_718_000_000_200],
    [0, 0],
    [-0, 0],
    [-0.5, 0],
    [253_402_300_799_999, 253_402_300_799_999],
    [null, RECEIVED_AT],
  ])('%j is %j', (timestamp, expected) => {
    expect(Object.is(accepted(log({ timestamp })).timestamp, expected)).toBe(true);
  });

  it('ts replaces timestamp', () => {
    expect(accepted(log({ ts: 5, timestamp: 'bad' })).timestamp).toBe(5);
    expect(accepted(log({ ts: null, timestamp: 7 })).timestamp).toBe(7);
  });

  it('rejections', () => {
    for (const timestamp of ['yesterday', {}, [], true, '1e999', Number.POSITIVE_INFINITY, Number.NaN, deepArray(10_000), '2024-13-45T00:00:00Z', `${'1'.repeat(60_000)}x`, '9'.repeat(101)]) {
      f(log({ timestamp }), "Invalid value for field 'timestamp'");
    }
    // Log timestamps become Redis stream ids (ms ≥ 0), reads render them as ISO-8601 with a 4-digit year.
    for (const timestamp of [-1, -1e15, 253_402_300_800_000, 1e20, 2 ** 63, 1e300, '1e20', '1969-12-31T23:59:59.999Z']) {
      f(log({ timestamp }), "Field 'timestamp' out of range (0 to 253402300799999 ms)");
    }
  });
});

describe('step 9: string fields and their caps', () => {
  it('non-strings are invalid, null and absent are absent', () => {
    f(log({ metric: 5 }), "Invalid value for field 'metric'");
    f(log({ variant: [] }), "Invalid value for field 'variant'");
    f(log({ worker: {} }), "Invalid value for field 'worker'");
    f(log({ msg: ['a'] }), "Invalid value for field 'msg'");
    f(log({ level: deepArray(10_000) }), "Invalid value for field 'level'");
    f({ type: 'training_debug_image', task: 't1', url: 1 }, "Invalid value for field 'url'");
    f({ type: 'training_debug_image', task: 't1', key: true }, "Invalid value for field 'key'");
    f({ type: 'plot', task: 't1', plot_str: {} }, "Invalid value for field 'plot_str'");
    expect(accepted(log({ metric: null, variant: '' }))).toMatchObject({ metric: '', variant: '', worker: 'node-7' });
  });

  it.each([
    ['metric', 4096, log],
    ['variant', 4096, log],
    ['worker', 1024, log],
    ['level', 128, log],
    ['msg', 1_048_576, log],
    ['url', 16_384, (fields: Record<string, unknown>) => ({ type: 'training_debug_image', task: 't1', ...fields })],
    ['key', 4096, (fields: Record<string, unknown>) => ({ type: 'training_debug_image', task: 't1', ...fields })],
    ['x_axis_label', 4096, scalar],
  ] as const)('%s: at most %i characters', (field, cap, make) => {
    f(make({ [field]: 'x'.repeat(cap) }), undefined);
    f(make({ [field]: 'x'.repeat(cap + 1) }), `Field '${field}' longer than ${cap} characters`);
  });

  it('the worker header is held to the same cap', () => {
    f(log(), `Field 'worker' longer than 1024 characters`, { ...context, defaultWorker: 'w'.repeat(1025) });
    f(log({ worker: 'own' }), undefined, { ...context, defaultWorker: 'w'.repeat(1025) });
  });

  it('strings must be valid Unicode (a lone surrogate cannot be stored as sent)', () => {
    for (const field of ['metric', 'variant', 'worker', 'level', 'msg']) {
      f(log({ [field]: 'a\ud800b' }), `Invalid value for field '${field}'`);
      f(log({ [field]: '\udc00' }), `Invalid value for field '${field}'`);
      f(log({ [field]: 'ok 😀 é \u0000 \n' }), undefined);
    }
    f({ type: 'plot', task: 't1', plot_str: '{"a": "\ud83d"}' }, "Invalid value for field 'plot_str'");
    f({ type: 'training_debug_image', task: 't1', url: '\ud800' }, "Invalid value for field 'url'");
    f(scalar({ x_axis_label: '\ud800' }), "Invalid value for field 'x_axis_label'");
  });

  it('x_axis_label that is not a string is ignored (contract: not validated)', () => {
    expect(accepted(scalar({ x_axis_label: 5 })).xAxisLabel).toBeUndefined();
    expect(accepted(scalar({ x_axis_label: deepArray(10_000) })).xAxisLabel).toBeUndefined();
    expect(accepted(scalar({ x_axis_label: 'epoch' })).xAxisLabel).toBe('epoch');
  });
});

describe('step 10: values', () => {
  it.each([
    [1, 1],
    [-0.5, -0.5],
    ['7.5', 7.5],
    [' -1.25e-3 ', -0.00125],
    ['.5', 0.5],
    ['5.', 5],
    [1.7976931348623157e308, 1.7976931348623157e308],
    [5e-324, 5e-324],
  ])('scalar value %j is %j', (value, expected) => {
    expect(accepted(scalar({ value })).value).toBe(expected);
  });

  it('scalar rejections', () => {
    f(scalar({ value: undefined }), "Missing value for field 'value'");
    f(scalar({ value: null }), "Missing value for field 'value'");
    for (const value of ['abc', '', '1e999', '-1e400', 'Infinity', 'NaN', '0x10', true, [1], {}, deepArray(10_000), Number.POSITIVE_INFINITY, Number.NaN, '1'.repeat(101), `${'1'.repeat(60_000)}x`]) {
      f(scalar({ value }), "Invalid value for field 'value'");
    }
  });

  const vector = (fields: Record<string, unknown>) => ({ type: 'training_stats_vector', task: 't1', ...fields });
  it('vectors', () => {
    expect(accepted(vector({ values: [1, 2.5, -3] })).values).toEqual([1, 2.5, -3]);
    expect(accepted(vector({ value: [4] })).values).toEqual([4]);
    expect(accepted(vector({ values: [1], value: [2] })).values).toEqual([1]);
    expect(accepted(vector({ values: [] })).values).toEqual([]);
    f(vector({}), "Missing value for field 'values'");
    f(vector({ values: null }), "Missing value for field 'values'");
    for (const values of [[1, 'a'], [1, Number.NaN], [Number.POSITIVE_INFINITY], [[1]], deepArray(10_000), {}, '1,2', 5]) {
      f(vector({ values }), "Invalid value for field 'values'");
    }
    f(vector({ values: new Array(100_000).fill(0.5) }), undefined);
    f(vector({ values: new Array(100_001).fill(0.5) }), "Field 'values' longer than 100000 items");
  });
});

describe('only own properties, prototype keys are unknown fields', () => {
  it('inherited properties are not read', () => {
    const inherited = Object.create({ type: 'log', task: 't1' }) as Record<string, unknown>;
    f(inherited, "Event must have a 'type' field");
    const parsed = JSON.parse('{"__proto__": {"type": "log", "task": "t1"}, "task": "t1"}') as Record<string, unknown>;
    f(parsed, "Event must have a 'type' field");
  });

  it('a polluted Object.prototype changes nothing', () => {
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.type = 'log';
      proto.task = 't1';
      proto.iter = 'bad';
      proto.worker = 5;
      f({}, "Event must have a 'type' field");
      f({ type: 'log' }, "Event must have a 'task' field");
      expect(accepted({ type: 'log', task: 't2' })).toMatchObject({ iter: undefined, worker: 'node-7' });
    } finally {
      delete proto.type;
      delete proto.task;
      delete proto.iter;
      delete proto.worker;
    }
  });

  it('__proto__, constructor and prototype fields are dropped like any unknown field', () => {
    const raw = JSON.parse('{"type": "log", "task": "t1", "__proto__": {"msg": "x"}, "constructor": 5, "prototype": {"a": 1}, "msg": "kept"}') as Record<string, unknown>;
    const event = accepted(raw);
    expect(event.msg).toBe('kept');
    expect(Object.keys(event)).not.toContain('constructor');
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
  });
});
