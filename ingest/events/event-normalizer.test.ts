// The ingest rules as f-tests (VictoriaMetrics style): the per-event checks of events.md §1.3, in
// the contract's order, and the per-event limits of the hostile-input issue (docs/ingest.md
// "Per-event limits"). Each family has a small `f(name, input, expected)`; every call is one row,
// named after the bullet it proves (`§1.3.7` is step 7 of §1.3, `limit` a row of docs/ingest.md's
// table). `expected` is what becomes of the event:
// - `refused(<catalogue id>, <reason>)`: the errors_info key, and the catalogue id the refusal is
//   counted under (refusal-reasons.ts; alone in a request it answers 400/131, request-rules.test.ts);
// - `stored({...})`: the normalised fields that are stored; the row also encodes the event and checks
//   that its record reads back as those fields (storable-event-test-harness.ts).
// The stored record of each event type is spelled out in full under §1.4. The entity's status (step 6
// beyond the id's form) and the request-level rules are in request-rules.test.ts.
import { describe, expect, it, vi } from 'vitest';
import type { ErrorId } from '../../shared/errors/error-catalogue.js';
import type { LogRecord } from '../../shared/events/wire-format.js';
import { checkLogBody } from '../writer/record-checks.js';
import type { RawEvent } from './event-fields.js';
import { normalizeEvent, type NormalizeContext, type NormalizedEvent } from './event-normalizer.js';
import { plotFields } from './plot-storage.js';
import { eventRefusalReason } from './refusal-reasons.js';
import { encodeAccepted, expectStorable } from './storable-event-test-harness.js';

const RECEIVED_AT = 1_718_000_000_000;
const CONTEXT: NormalizeContext = { receivedAt: RECEIVED_AT, defaultWorker: 'node-7', allowLockedDefault: false };

/** An event as a JS object, or as the JSON line a client sends (for what only JSON text can carry). */
type Input = RawEvent | string;
type Expected = { refused: string; countedAs: ErrorId } | { stored: Partial<NormalizedEvent> };

const refused = (countedAs: ErrorId, reason: string): Expected => ({ refused: reason, countedAs });
const stored = (fields: Partial<NormalizedEvent> = {}): Expected => ({ stored: fields });
const invalid = (field: string) => refused('invalid_fields', `Invalid value for field '${field}'`);
const longer = (field: string, cap: number) =>
  refused('invalid_fields', `Field '${field}' longer than ${cap} characters`);
const invalidTask = (id: string) => refused('invalid_task_id', `Invalid task id ${id}`);
const invalidModel = (id: string) => refused('invalid_model_id', `Invalid model id ${id}`);
const invalidType = (shown: string) => refused('invalid_fields', `Invalid event type ${shown}`);
const NO_TYPE = refused('missing_required_fields', "Event must have a 'type' field");
const NO_TASK = refused('missing_required_fields', "Event must have a 'task' field");
const LOG_FOR_MODEL = refused('validation_error', 'Task log events are not supported for models');
const ITER_ABOVE = refused('invalid_fields', 'Iteration number should not exceed 9223372036854775807');
const ITER_BELOW = refused('invalid_fields', 'Iteration number should not be below -9200000000000000000');
const TIMESTAMP_RANGE = refused('invalid_fields', "Field 'timestamp' out of range (0 to 253402300799999 ms)");

function check(input: Input, expected: Expected, context: NormalizeContext): NormalizedEvent | undefined {
  const raw = typeof input === 'string' ? (JSON.parse(input) as RawEvent) : input;
  const result = normalizeEvent(raw, context);
  const reason = result.earlyError ?? result.lateError;
  if ('refused' in expected) {
    expect(reason).toBe(expected.refused);
    expect(result.event).toBeUndefined();
    expect(eventRefusalReason(reason!)).toBe(expected.countedAs);
    return undefined;
  }
  expect(reason).toBeUndefined();
  expect(result.event).toMatchObject(expected.stored);
  expectStorable(result.event!);
  return result.event;
}

/** One row: a test named `name` (large inputs are built inside it, from a function). */
function row(name: string, input: Input | (() => Input), expected: Expected, context = CONTEXT): void {
  it(name, () => void check(typeof input === 'function' ? input() : input, expected, context));
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

const scalar = (fields: RawEvent = {}): RawEvent => ({
  type: 'training_stats_scalar',
  task: 't1',
  value: 1,
  ...fields,
});
const vector = (fields: RawEvent = {}): RawEvent => ({ type: 'training_stats_vector', task: 't1', ...fields });
const image = (fields: RawEvent = {}): RawEvent => ({ type: 'training_debug_image', task: 't1', ...fields });
const plot = (fields: RawEvent = {}): RawEvent => ({ type: 'plot', task: 't1', ...fields });
const log = (fields: RawEvent = {}): RawEvent => ({ type: 'log', task: 't1', ...fields });

describe('§1.3.1 control fields and model events', () => {
  const f = (name: string, input: Input, expected: Expected, context = CONTEXT) =>
    row(`§1.3.1 ${name}`, input, expected, context);
  f(
    'model_event true: the event belongs to the model whose id is in task',
    plot({ model_event: true }),
    stored({ namespace: 'm', entity: 't1' }),
  );
  f(
    'model_event true and model present: model replaces task',
    plot({ task: 'ignored', model: 'm1', model_event: true }),
    stored({ namespace: 'm', entity: 'm1' }),
  );
  f(
    'model_event true and model null: task stays',
    plot({ model: null, model_event: true }),
    stored({ namespace: 'm', entity: 't1' }),
  );
  f(
    'model_event false: model is ignored',
    plot({ model: 'm1', model_event: false }),
    stored({ namespace: 't', entity: 't1' }),
  );
  f('model_event absent: a task event', plot(), stored({ namespace: 't', entity: 't1' }));
  f('model_event by truthiness: "false" is true', plot({ model_event: 'false' }), stored({ namespace: 'm' }));
  f('model_event by truthiness: 1 is true', plot({ model_event: 1 }), stored({ namespace: 'm' }));
  f('model_event by truthiness: [0] is true', plot({ model_event: [0] }), stored({ namespace: 'm' }));
  f('model_event by truthiness: 0 is false', plot({ model_event: 0 }), stored({ namespace: 't' }));
  f('model_event by truthiness: "" is false', plot({ model_event: '' }), stored({ namespace: 't' }));
  f('model_event by truthiness: {} is false', plot({ model_event: {} }), stored({ namespace: 't' }));
  f('allow_locked absent: false', log(), stored({ allowLocked: false }));
  f('allow_locked true', log({ allow_locked: true }), stored({ allowLocked: true }));
  f('allow_locked by truthiness: "no" is true', log({ allow_locked: 'no' }), stored({ allowLocked: true }));
  f('allow_locked by truthiness: 0 is false', log({ allow_locked: 0 }), stored({ allowLocked: false }));
  f('allow_locked absent takes the query string value of events.add (§1.9)', log(), stored({ allowLocked: true }), {
    ...CONTEXT,
    allowLockedDefault: true,
  });
  f('allow_locked null takes the query string value', log({ allow_locked: null }), stored({ allowLocked: true }), {
    ...CONTEXT,
    allowLockedDefault: true,
  });
  f(
    'allow_locked false in the event overrides the query string',
    log({ allow_locked: false }),
    stored({ allowLocked: false }),
    { ...CONTEXT, allowLockedDefault: true },
  );
  f('skip_validation by truthiness', plot({ skip_validation: 'x' }), stored({ skipValidation: true }));
  f('skip_validation absent', plot(), stored({ skipValidation: false }));
});

describe('§1.3.2 type present', () => {
  const f = (name: string, input: Input, expected: Expected) => row(`§1.3.2 ${name}`, input, expected);
  f('absent', { task: 't1' }, NO_TYPE);
  f('null counts as absent', { type: null, task: 't1' }, NO_TYPE);
  f('checked before task', {}, NO_TYPE);
});

describe('§1.3.3 type one of the five, spaces replaced', () => {
  const f = (name: string, input: Input | (() => Input), expected: Expected) => row(`§1.3.3 ${name}`, input, expected);
  f('training_stats_scalar', scalar(), stored({ type: 'training_stats_scalar' }));
  f('training_stats_vector', vector({ values: [1] }), stored({ type: 'training_stats_vector' }));
  f('training_debug_image', image(), stored({ type: 'training_debug_image' }));
  f('plot', plot(), stored({ type: 'plot' }));
  f('log', log(), stored({ type: 'log' }));
  f(
    'spaces become underscores',
    { type: 'training stats scalar', task: 't1', value: 1 },
    stored({ type: 'training_stats_scalar' }),
  );
  f('unknown: the normalised value is printed', { type: 'nope', task: 't1' }, invalidType('nope'));
  f('unknown with spaces: printed with underscores', { type: 'a b c', task: 't1' }, invalidType('a_b_c'));
  f('exact: a trailing space makes another type', { type: 'log ', task: 't1' }, invalidType('log_'));
  f('exact: upper case is another type', { type: 'LOG', task: 't1' }, invalidType('LOG'));
  f('a number prints as itself', { type: 5, task: 't1' }, invalidType('5'));
  f('true prints as Python does', { type: true, task: 't1' }, invalidType('True'));
  f('a list prints by kind', { type: ['log'], task: 't1' }, invalidType('<list>'));
  f('an object prints by kind', { type: { log: 1 }, task: 't1' }, invalidType('<dict>'));
  f(
    'limit: a list nested 10,000 deep is not walked',
    () => ({ type: deepArray(10_000), task: 't1' }),
    invalidType('<list>'),
  );
  f(
    'limit: nested 10,000 deep in the JSON text',
    `{"type": ${'['.repeat(10_000)}${']'.repeat(10_000)}, "task": "t1"}`,
    invalidType('<list>'),
  );
  f(
    'limit: 10 MB is echoed cut at 256 characters',
    () => ({ type: 'x'.repeat(10_000_000), task: 't1' }),
    invalidType(`${'x'.repeat(256)}…`),
  );
  f('limit: 256 characters are echoed whole', { type: 'x'.repeat(256), task: 't1' }, invalidType('x'.repeat(256)));
  f(
    'limit: the echo never cuts a surrogate pair',
    { type: `${'a'.repeat(255)}😀`, task: 't1' },
    invalidType(`${'a'.repeat(255)}…`),
  );
});

describe('§1.3.4 log events of models', () => {
  const f = (name: string, input: Input, expected: Expected) => row(`§1.3.4 ${name}`, input, expected);
  f('refused', log({ model_event: true }), LOG_FOR_MODEL);
  f('model_event by truthiness', log({ model_event: 'yes' }), LOG_FOR_MODEL);
  f('checked before task', { type: 'log', model_event: true }, LOG_FOR_MODEL);
  f('other types of models are accepted', scalar({ model_event: true }), stored({ namespace: 'm' }));
});

describe('§1.3.5 task present', () => {
  const f = (name: string, input: Input, expected: Expected) => row(`§1.3.5 ${name}`, input, expected);
  f('absent', { type: 'log' }, NO_TASK);
  f('null', { type: 'log', task: null }, NO_TASK);
  f('model without model_event does not count', { type: 'plot', model: 'm1', model_event: false }, NO_TASK);
  f('model_event true and neither model nor task', { type: 'plot', model_event: true }, NO_TASK);
  f(
    'model_event true and model without task: model is the id',
    { type: 'plot', model: 'm1', model_event: true },
    stored({ namespace: 'm', entity: 'm1' }),
  );
});

describe('§1.3.6 entity id: a non-empty string of at most 128 characters of [A-Za-z0-9_.-] (limit: ids)', () => {
  const f = (name: string, task: unknown, expected: Expected) => row(`§1.3.6 ${name}`, () => log({ task }), expected);
  f('empty prints with a trailing space', '', invalidTask(''));
  f('128 characters', 'a'.repeat(128), stored({ entity: 'a'.repeat(128) }));
  f('129 characters, echoed whole', 'a'.repeat(129), invalidTask('a'.repeat(129)));
  f('limit: 10 MB, echoed cut at 256 characters', 'x'.repeat(10_000_000), invalidTask(`${'x'.repeat(256)}…`));
  f('every character class', 'Ab_9.-z', stored({ entity: 'Ab_9.-z' }));
  f(
    'a ClearML id (uuid4 hex)',
    '8f1c2d0b5e57a1c2b3d4e5f60718293a',
    stored({ entity: '8f1c2d0b5e57a1c2b3d4e5f60718293a' }),
  );
  for (const id of [
    'a:b',
    'a b',
    'a/b',
    'a*',
    'é',
    '\u0000',
    'a\n',
    '{x}',
    'a"b',
    '\ud800',
    '😀',
    'a,b',
    'a=b',
    'a\\b',
    '~a',
  ]) {
    f(`limit: ${JSON.stringify(id)} is outside the id characters`, id, invalidTask(id));
  }
  it('§1.3.6 empty, as the first event of a process', async () => {
    vi.resetModules();
    const fresh = await import('./event-normalizer.js');
    const result = fresh.normalizeEvent(log({ task: '' }), CONTEXT);
    expect([result.earlyError, result.event]).toEqual(['Invalid task id ', undefined]);
  });
  f('a number', 5, invalidTask('5'));
  f('false', false, invalidTask('False'));
  f('a list', ['t1'], invalidTask('<list>'));
  f('limit: a list nested 10,000 deep', deepArray(10_000), invalidTask('<list>'));
  f('limit: an object nested 10,000 deep', deepObject(10_000), invalidTask('<dict>'));

  const m = (name: string, input: Input | (() => Input), expected: Expected) =>
    row(`§1.3.6 model ids: ${name}`, input, expected);
  m('a number in task', { type: 'plot', task: 5, model_event: 1 }, invalidModel('5'));
  m('the model field', { type: 'plot', task: 't1', model: 'a:b', model_event: true }, invalidModel('a:b'));
  m(
    'echoed cut at 256 characters',
    () => ({ type: 'plot', task: 'a'.repeat(300), model_event: true }),
    invalidModel(`${'a'.repeat(256)}…`),
  );
});

describe('§1.3.7 iter', () => {
  const f = (name: string, iter: unknown, expected: Expected) => row(`§1.3.7 ${name}`, () => log({ iter }), expected);
  f('a JSON integer is taken as is', 120, stored({ iter: 120 }));
  f('a fraction is truncated toward zero', 1.9, stored({ iter: 1 }));
  f('a negative fraction is truncated toward zero', -1.9, stored({ iter: -1 }));
  f('-0 is 0', -0, stored({ iter: 0 }));
  f('a signed string', '-3', stored({ iter: -3 }));
  f('a string with surrounding whitespace', ' 12 ', stored({ iter: 12 }));
  f('a string with a plus sign', '+7', stored({ iter: 7 }));
  f('"-0" is 0', '-0', stored({ iter: 0 }));
  f('null counts as absent', null, stored({ iter: undefined }));
  f('absent', undefined, stored({ iter: undefined }));
  f('the single-value iteration (−2^31)', -2_147_483_648, stored({ iter: -2_147_483_648 }));
  f('the largest double below 2^63', 2 ** 63 - 1024, stored({ iter: 2 ** 63 - 1024 }));
  f('limit: −9.2e18 is the smallest iteration', -9.2e18, stored({ iter: -9.2e18 }));
  for (const iter of ['abc', '1e3', '1.5', '', '0x10', true, {}, [1]])
    f(`${JSON.stringify(iter)} is not an integer`, iter, invalid('iter'));
  f('limit: a list nested 10,000 deep', deepArray(10_000), invalid('iter'));
  f('limit: a numeric string over 100 characters', '9'.repeat(101), invalid('iter'));
  f('limit: a 60,000-character string is not matched', `${'1'.repeat(60_000)}x`, invalid('iter'));
  f('2^63', 2 ** 63, ITER_ABOVE);
  f('1e19', 1e19, ITER_ABOVE);
  f('below −2^63', -1e19, ITER_ABOVE);
  f('1e300', 1e300, ITER_ABOVE);
  f('Infinity (gRPC)', Number.POSITIVE_INFINITY, ITER_ABOVE);
  f('"9223372036854775808"', '9223372036854775808', ITER_ABOVE);
  f('limit: below −9.2e18 reads back as "no iteration"', -9.21e18, ITER_BELOW);
  f('limit: −2^63', -(2 ** 63), ITER_BELOW);
});

describe('§1.3.8 timestamp and ts (limit: what a Redis stream id and a 4-digit year hold)', () => {
  const f = (name: string, timestamp: unknown, expected: Expected) =>
    row(`§1.3.8 ${name}`, () => log({ timestamp }), expected);
  f('epoch ms', 1_718_000_000_123, stored({ timestamp: 1_718_000_000_123 }));
  f('fractions are truncated', 1_718_000_000_123.9, stored({ timestamp: 1_718_000_000_123 }));
  f('a numeric string with an exponent', '1.718e12', stored({ timestamp: 1_718_000_000_000 }));
  f('a numeric string with whitespace', ' 1718000000123 ', stored({ timestamp: 1_718_000_000_123 }));
  f('ISO-8601 UTC', '2024-06-10T06:13:20.200Z', stored({ timestamp: 1_718_000_000_200 }));
  f('ISO-8601 without a zone is UTC', '2024-06-10 06:13:20.200', stored({ timestamp: 1_718_000_000_200 }));
  f('ISO-8601 with an offset', '2024-06-10T08:13:20.200+02:00', stored({ timestamp: 1_718_000_000_200 }));
  f('ISO-8601 with an offset without colon', '2024-06-10T08:13:20.200+0200', stored({ timestamp: 1_718_000_000_200 }));
  f(
    'ISO-8601 fractions beyond ms are truncated',
    '2024-06-10T06:13:20.2009Z',
    stored({ timestamp: 1_718_000_000_200 }),
  );
  f('ISO-8601 with an hours-only offset', '2024-06-10T08:13:20.200+02', stored({ timestamp: 1_718_000_000_200 }));
  f('ISO-8601 with a decimal comma', '2024-06-10T06:13:20,200Z', stored({ timestamp: 1_718_000_000_200 }));
  f('ISO-8601 on 29 February of a leap year', '2024-02-29T00:00:00Z', stored({ timestamp: 1_709_164_800_000 }));
  f('limit: 0 is the smallest', 0, stored({ timestamp: 0 }));
  f('-0 is 0', -0, stored({ timestamp: 0 }));
  f('-0.5 truncates to 0', -0.5, stored({ timestamp: 0 }));
  f('limit: 9999-12-31T23:59:59.999Z is the largest', 253_402_300_799_999, stored({ timestamp: 253_402_300_799_999 }));
  f('null: the receive time', null, stored({ timestamp: RECEIVED_AT }));
  f('absent: the receive time', undefined, stored({ timestamp: RECEIVED_AT }));
  for (const timestamp of [
    'yesterday',
    '',
    {},
    [],
    true,
    '1e999',
    '2024-13-45T00:00:00Z',
    '2024-06-10Tfoo',
    '2024-02-30T00:00:00Z',
    '2023-02-29',
    '2024-04-31 12:00',
  ]) {
    f(`${JSON.stringify(timestamp)} is not a timestamp`, timestamp, invalid('timestamp'));
  }
  f('Infinity (gRPC)', Number.POSITIVE_INFINITY, invalid('timestamp'));
  f('NaN (gRPC)', Number.NaN, invalid('timestamp'));
  f('limit: a list nested 10,000 deep', deepArray(10_000), invalid('timestamp'));
  f('limit: a numeric string over 100 characters', '9'.repeat(101), invalid('timestamp'));
  f('limit: a 60,000-character string is not matched', `${'1'.repeat(60_000)}x`, invalid('timestamp'));
  f('limit: -1 (no Redis stream id)', -1, TIMESTAMP_RANGE);
  f('limit: -1e15', -1e15, TIMESTAMP_RANGE);
  f('limit: one ms after 9999', 253_402_300_800_000, TIMESTAMP_RANGE);
  f('limit: 1e20 (no Redis stream id)', 1e20, TIMESTAMP_RANGE);
  f('limit: 2^63', 2 ** 63, TIMESTAMP_RANGE);
  f('limit: 1e300', 1e300, TIMESTAMP_RANGE);
  f('limit: "1e20"', '1e20', TIMESTAMP_RANGE);
  f('limit: before 1970', '1969-12-31T23:59:59.999Z', TIMESTAMP_RANGE);

  const ts = (name: string, input: Input, expected: Expected) => row(`§1.3.8 ts: ${name}`, input, expected);
  ts('replaces timestamp', log({ ts: 5, timestamp: 'bad' }), stored({ timestamp: 5 }));
  ts('null counts as absent', log({ ts: null, timestamp: 7 }), stored({ timestamp: 7 }));
  ts('checked like timestamp', log({ ts: {} }), invalid('timestamp'));
});

describe('§1.3.9 string fields (limit: lengths, valid Unicode)', () => {
  const f = (name: string, input: Input | (() => Input), expected: Expected, context = CONTEXT) =>
    row(`§1.3.9 ${name}`, input, expected, context);
  f('metric: a number', log({ metric: 5 }), invalid('metric'));
  f('variant: a list', log({ variant: [] }), invalid('variant'));
  f('worker: an object', log({ worker: {} }), invalid('worker'));
  f('msg: a list', log({ msg: ['a'] }), invalid('msg'));
  f('level: a list nested 10,000 deep', () => log({ level: deepArray(10_000) }), invalid('level'));
  f('url: a number', image({ url: 1 }), invalid('url'));
  f('key: true', image({ key: true }), invalid('key'));
  f('plot_str: an object', plot({ plot_str: {} }), invalid('plot_str'));
  f('msg of a scalar event: every event is checked', scalar({ msg: 5 }), invalid('msg'));
  f('level of a plot event', plot({ level: [] }), invalid('level'));
  f('url of a log event', log({ url: {} }), invalid('url'));
  f('key of a vector event', vector({ values: [1], key: 1 }), invalid('key'));
  f('plot_str of a debug image event', image({ plot_str: false }), invalid('plot_str'));
  f(
    'a string field of another type is dropped',
    scalar({ msg: 'm', url: 'u', plot_str: 'p' }),
    stored({ msg: undefined, url: undefined, plotStr: undefined }),
  );
  f(
    'null counts as absent',
    log({ metric: null, variant: null, worker: null, level: null, msg: null }),
    stored({ metric: '', variant: '', worker: 'node-7', level: undefined, msg: undefined }),
  );

  const caps: Array<[string, number, (fields: RawEvent) => RawEvent]> = [
    ['metric', 4096, log],
    ['variant', 4096, log],
    ['worker', 1024, log],
    ['level', 128, log],
    ['msg', 1_048_576, log],
    ['url', 16_384, image],
    ['key', 4096, image],
    ['x_axis_label', 4096, scalar],
  ];
  for (const [field, cap, make] of caps) {
    f(`limit: ${field} of ${cap} characters`, () => make({ [field]: 'x'.repeat(cap) }), stored());
    f(`limit: ${field} of ${cap + 1} characters`, () => make({ [field]: 'x'.repeat(cap + 1) }), longer(field, cap));
  }
  f(
    'limit: a 70,000-character metric (InfluxDB series key)',
    () => scalar({ metric: 'm'.repeat(70_000) }),
    longer('metric', 4096),
  );
  f('limit: the worker header is held to the worker cap', log(), longer('worker', 1024), {
    ...CONTEXT,
    defaultWorker: 'w'.repeat(1025),
  });
  f('limit: a worker field replaces an over-long header', log({ worker: 'own' }), stored({ worker: 'own' }), {
    ...CONTEXT,
    defaultWorker: 'w'.repeat(1025),
  });

  for (const field of ['metric', 'variant', 'worker', 'level', 'msg']) {
    f(`limit: ${field} with a lone high surrogate`, log({ [field]: 'a\ud800b' }), invalid(field));
    f(`limit: ${field} with a lone low surrogate`, log({ [field]: '\udc00' }), invalid(field));
    f(`limit: ${field} with pairs, accents, NUL and newlines`, log({ [field]: 'ok 😀 é \u0000 \n' }), stored());
  }
  f(
    'limit: a lone surrogate escaped in the JSON text',
    '{"type": "training_stats_scalar", "task": "t1", "variant": "\\ud800", "value": 1}',
    invalid('variant'),
  );
  f('limit: plot_str with a lone surrogate', plot({ plot_str: '{"a": "\ud83d"}' }), invalid('plot_str'));
  f('limit: url with a lone surrogate', image({ url: '\ud800' }), invalid('url'));
  f('limit: x_axis_label with a lone surrogate', scalar({ x_axis_label: '\ud800' }), invalid('x_axis_label'));
  f(
    'x_axis_label is not validated: a number is ignored',
    scalar({ x_axis_label: 5 }),
    stored({ xAxisLabel: undefined }),
  );
  f(
    'x_axis_label is not validated: a deep list is ignored',
    () => scalar({ x_axis_label: deepArray(10_000) }),
    stored({ xAxisLabel: undefined }),
  );
  f(
    'x_axis_label kept for the task record (§1.11)',
    scalar({ x_axis_label: 'epoch' }),
    stored({ xAxisLabel: 'epoch' }),
  );
});

describe('§1.3.10 value and values', () => {
  const f = (name: string, value: unknown, expected: Expected) =>
    row(`§1.3.10 scalar: ${name}`, () => scalar({ value }), expected);
  f('a number', 1, stored({ value: 1 }));
  f('a negative fraction', -0.5, stored({ value: -0.5 }));
  f('a numeric string', '7.5', stored({ value: 7.5 }));
  f('a numeric string with whitespace and an exponent', ' -1.25e-3 ', stored({ value: -0.00125 }));
  f('".5"', '.5', stored({ value: 0.5 }));
  f('"5."', '5.', stored({ value: 5 }));
  f('-0 is 0', -0, stored({ value: 0 }));
  f('the largest double', 1.7976931348623157e308, stored({ value: 1.7976931348623157e308 }));
  f('the smallest double', 5e-324, stored({ value: 5e-324 }));
  f('absent', undefined, refused('missing_required_fields', "Missing value for field 'value'"));
  f('null', null, refused('missing_required_fields', "Missing value for field 'value'"));
  for (const value of ['abc', '', 'Infinity', 'NaN', '0x10', true, [1], {}])
    f(`${JSON.stringify(value)} is not a number`, value, invalid('value'));
  f('limit: "1e999" is no finite double', '1e999', invalid('value'));
  f('limit: "-1e400" is no finite double', '-1e400', invalid('value'));
  f('limit: Infinity (gRPC)', Number.POSITIVE_INFINITY, invalid('value'));
  f('limit: NaN (gRPC)', Number.NaN, invalid('value'));
  f('limit: a list nested 10,000 deep', deepArray(10_000), invalid('value'));
  f('limit: a numeric string over 100 characters', '1'.repeat(101), invalid('value'));
  f('limit: a 60,000-character string is not matched', `${'1'.repeat(60_000)}x`, invalid('value'));
  row(
    '§1.3.10 scalar limit: the JSON number 1e999 (Infinity once parsed)',
    '{"type": "training_stats_scalar", "task": "t1", "value": 1e999}',
    invalid('value'),
  );

  const v = (name: string, input: Input | (() => Input), expected: Expected) =>
    row(`§1.3.10 vector: ${name}`, input, expected);
  v('values, stored under value', vector({ values: [1, 2.5, -3] }), stored({ values: [1, 2.5, -3] }));
  v('a value array instead', vector({ value: [4] }), stored({ values: [4] }));
  v('values wins over value', vector({ values: [1], value: [2] }), stored({ values: [1] }));
  v('values null: value is used', vector({ values: null, value: [2] }), stored({ values: [2] }));
  v('empty', vector({ values: [] }), stored({ values: [] }));
  v('-0 items are 0', vector({ values: [-0] }), stored({ values: [0] }));
  v('absent', vector(), refused('missing_required_fields', "Missing value for field 'values'"));
  v('null', vector({ values: null }), refused('missing_required_fields', "Missing value for field 'values'"));
  for (const values of [[1, 'a'], [[1]], {}, '1,2', 5])
    v(`${JSON.stringify(values)} is not an array of numbers`, vector({ values }), invalid('values'));
  v('limit: a NaN item (gRPC)', vector({ values: [1, Number.NaN] }), invalid('values'));
  v('limit: an Infinity item (gRPC)', vector({ values: [Number.POSITIVE_INFINITY] }), invalid('values'));
  v('limit: a list nested 10,000 deep', () => vector({ values: deepArray(10_000) }), invalid('values'));
  v('limit: 100,000 items', () => vector({ values: new Array(100_000).fill(0.5) }), stored());
  v(
    'limit: 100,001 items',
    () => vector({ values: new Array(100_001).fill(0.5) }),
    refused('invalid_fields', "Field 'values' longer than 100000 items"),
  );
});

describe('§1.3.11 fills', () => {
  const f = (name: string, input: Input, expected: Expected, context = CONTEXT) =>
    row(`§1.3.11 ${name}`, input, expected, context);
  f('metric and variant absent: ""', log(), stored({ metric: '', variant: '' }));
  f('metric and variant null or "": ""', log({ metric: null, variant: '' }), stored({ metric: '', variant: '' }));
  f('worker absent: the worker header', log(), stored({ worker: 'node-7' }));
  f('worker null: the worker header', log({ worker: null }), stored({ worker: 'node-7' }));
  f('worker field over the header', log({ worker: 'w2' }), stored({ worker: 'w2' }));
  f('no worker header: <unknown> (§1.2)', log(), stored({ worker: '<unknown>' }), {
    ...CONTEXT,
    defaultWorker: undefined,
  });
  f('an empty worker header: <unknown>', log(), stored({ worker: '<unknown>' }), { ...CONTEXT, defaultWorker: '' });
  f('plot_str absent: ""', plot(), stored({ plotStr: '' }));

  /** The plot fields of §1.7 for a plot event, with plot validation on or off. */
  const p = (
    name: string,
    fields: RawEvent,
    validation: boolean,
    expected: { length: number; sourceUrls?: string[]; valid?: boolean },
  ) =>
    it(`§1.3.11 plot fields (§1.7): ${name}`, () => {
      const event = check(plot(fields), stored(), CONTEXT)!;
      const text = event.plotStr!;
      expect(plotFields(event, `p${text}`, { plotValidation: validation, plotCompressionThreshold: 0 })).toStrictEqual({
        stored: `p${text}`,
        sourceUrls: undefined,
        valid: undefined,
        ...expected,
      });
    });
  p('plot_len in code points', { plot_str: '{"t": "😀"}' }, false, { length: 10 });
  p('plot_len 0 for an absent plot_str', {}, false, { length: 0 });
  p(
    'source_urls of embedded images',
    { plot_str: '{"layout": {"images": [{"source": "https://files/a.png"}]}}' },
    false,
    { length: 59, sourceUrls: ['https://files/a.png'] },
  );
  p('validation on: valid JSON', { plot_str: '{"data": []}' }, true, { length: 12, valid: true });
  p('validation on: not JSON, still accepted', { plot_str: '{"data": [' }, true, { length: 10, valid: false });
  p('validation on: empty is invalid', { plot_str: '' }, true, { length: 0, valid: false });
  p('validation on: skip_validation leaves it out', { plot_str: 'x', skip_validation: true }, true, { length: 1 });
});

describe('§1.4 the stored record of each type (company-a, received at 2024-06-10T06:13:20Z)', () => {
  /** The encoded record: `I <line protocol>` for points, `L <company> <task> <timestamp> <stored JSON>` for logs. */
  function recordOf(event: NormalizedEvent): string {
    const record = encodeAccepted(event);
    if (record.kind !== 'L') return `${record.kind} ${record.body}`;
    const [company, task, timestamp, json] = checkLogBody(record.body) as LogRecord;
    return `L ${company} ${task} ${timestamp} ${json}`;
  }
  const f = (name: string, input: Input, expected: string) =>
    it(`§1.4 ${name}`, () => {
      const event = check(input, stored(), { ...CONTEXT, defaultWorker: 'gpu-node-7' })!;
      expect(recordOf(event)).toBe(expected);
    });
  const common = { task: '8f1c2d', timestamp: 1_718_000_000_123 };
  f(
    'scalar',
    { type: 'training_stats_scalar', ...common, iter: 120, metric: 'loss', variant: 'train', value: 0.4132 },
    'I scalar,c=company-a,e=8f1c2d,m=loss,n=t,v=train y=0.4132,ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 120',
  );
  f(
    'vector: values under y, as JSON',
    {
      type: 'training_stats_vector',
      ...common,
      iter: 3,
      metric: 'weights',
      variant: 'layer1',
      values: [0.1, 0.5, 0.2],
    },
    'I vector,c=company-a,e=8f1c2d,m=weights,n=t,v=layer1 y="[0.1,0.5,0.2]",ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 3',
  );
  f(
    'debug image: key a tag, url a field',
    {
      type: 'training_debug_image',
      ...common,
      iter: 120,
      metric: 'samples',
      variant: 'input',
      key: 'p/e/samples_00000003.jpeg',
      url: 'https://files/p/e/s.jpeg',
    },
    'I image,c=company-a,e=8f1c2d,k=p/e/samples_00000003.jpeg,m=samples,n=t,v=input u="https://files/p/e/s.jpeg",ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 120',
  );
  f(
    'debug image without url and key',
    { type: 'training_debug_image', ...common, iter: 1, metric: 'samples', variant: 'input' },
    'I image,c=company-a,e=8f1c2d,m=samples,n=t,v=input ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 1',
  );
  f(
    'plot: plot_str as sent in its bucket of plot_body, then its length and no source_urls',
    { type: 'plot', ...common, iter: 0, metric: 'roc', variant: 'class1', plot_str: '{"data": [], "layout": {}}' },
    'I plot_body,b=0,c=company-a,e=8f1c2d,m=roc,n=t,v=class1 p="p{\\"data\\": [], \\"layout\\": {}}" 0\n' +
      'plot,c=company-a,e=8f1c2d,m=roc,n=t,v=class1 len=26i,src="",ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 0',
  );
  f(
    'log: the stored JSON, @timestamp the receive time',
    { type: 'log', ...common, level: 'info', msg: 'epoch 3 done\nval acc 0.91' },
    'L company-a 8f1c2d 1718000000123 {"timestamp":1718000000123,"metric":"","variant":"","worker":"gpu-node-7","model_event":false,"@timestamp":"2024-06-10T06:13:20.000Z","level":"info","msg":"epoch 3 done\\nval acc 0.91"}',
  );
  f(
    'log with an iteration',
    { type: 'log', ...common, iter: 4, msg: 'm' },
    'L company-a 8f1c2d 1718000000123 {"timestamp":1718000000123,"metric":"","variant":"","worker":"gpu-node-7","model_event":false,"@timestamp":"2024-06-10T06:13:20.000Z","iter":4,"msg":"m"}',
  );
  f(
    'a model event: namespace m, the model id as entity',
    {
      type: 'training_stats_scalar',
      ...common,
      task: 'ignored',
      model: 'm1',
      model_event: true,
      iter: 1,
      metric: 'loss',
      variant: 'v',
      value: 2,
    },
    'I scalar,c=company-a,e=m1,m=loss,n=m,v=v y=2,ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 1',
  );
  f(
    'no iteration: the sentinel time',
    { type: 'training_stats_scalar', ...common, metric: 'loss', variant: 'v', value: 2 },
    'I scalar,c=company-a,e=8f1c2d,m=loss,n=t,v=v y=2,ts=1718000000123i,at=1718000000000i,w="gpu-node-7" -9223372036854775806',
  );
  f(
    'names escaped for line protocol, an empty one base64-encoded',
    { type: 'training_stats_scalar', ...common, iter: 1, metric: 'a b,c=d', variant: '', worker: 'w "1"', value: 2 },
    'I scalar,c=company-a,e=8f1c2d,m=a\\ b\\,c\\=d,n=t,v=~ y=2,ts=1718000000123i,at=1718000000000i,w="w \\"1\\"" 1',
  );
  f(
    'a name with a line break base64-encoded',
    { type: 'training_stats_scalar', ...common, iter: 1, metric: 'loss', variant: 'line\nbreak', value: 2 },
    'I scalar,c=company-a,e=8f1c2d,m=loss,n=t,v=~bGluZQpicmVhaw y=2,ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 1',
  );
  f(
    'control fields and unknown fields are not stored',
    {
      type: 'training_stats_scalar',
      ...common,
      iter: 1,
      metric: 'loss',
      variant: 'v',
      value: 2,
      allow_locked: true,
      x_axis_label: 'epoch',
      skip_validation: true,
      model: 'm1',
      extra: { a: 1 },
      msg: 'other type',
    },
    'I scalar,c=company-a,e=8f1c2d,m=loss,n=t,v=v y=2,ts=1718000000123i,at=1718000000000i,w="gpu-node-7" 1',
  );
});

describe('limit: only own properties are read; prototype keys are unknown fields', () => {
  const f = (name: string, input: Input | (() => Input), expected: Expected) =>
    row(`limit (prototype keys): ${name}`, input, expected);
  f('inherited properties are not read', () => Object.create({ type: 'log', task: 't1' }) as RawEvent, NO_TYPE);
  f(
    'a __proto__ key of the JSON text is no prototype',
    '{"__proto__": {"type": "log", "task": "t1"}, "task": "t1"}',
    NO_TYPE,
  );
  f(
    '__proto__, constructor and prototype are dropped',
    '{"type": "log", "task": "t1", "__proto__": {"msg": "x"}, "constructor": {"prototype": {"x": 1}}, "prototype": {"a": 1}, "msg": "kept"}',
    stored({ msg: 'kept' }),
  );

  it('limit (prototype keys): a polluted Object.prototype supplies no field', () => {
    const proto = Object.prototype as Record<string, unknown>;
    try {
      proto.type = 'log';
      proto.task = 't1';
      proto.iter = 'bad';
      proto.worker = 5;
      check({}, NO_TYPE, CONTEXT);
      check({ type: 'log' }, NO_TASK, CONTEXT);
      check({ type: 'log', task: 't2' }, stored({ iter: undefined, worker: 'node-7' }), CONTEXT);
    } finally {
      delete proto.type;
      delete proto.task;
      delete proto.iter;
      delete proto.worker;
    }
  });

  it('limit (prototype keys): the normalised event is a plain object without them', () => {
    const raw = JSON.parse(
      '{"type": "log", "task": "t1", "__proto__": {"msg": "x"}, "constructor": 5, "prototype": {"a": 1}, "msg": "kept"}',
    ) as RawEvent;
    const event = check(raw, stored({ msg: 'kept' }), CONTEXT)!;
    expect(Object.keys(event)).not.toContain('constructor');
    expect(Object.keys(event)).not.toContain('prototype');
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).msg).toBeUndefined();
  });
});
