/**
 * Hostile events for events.add / add_batch (JSON) and for the gRPC ingest
 * (protobuf): every field of events.md §1.2 with wrong types, values no store
 * takes, adversarial ids, and the known poison events (values that pass
 * today's checks but that a store refuses).
 */
import fc from 'fast-check';
import { idRef } from './field-values.js';
import { IdRef, type SymbolicTree } from './fuzz-world.js';
import { anyJson, hostileNumber, hostileString, longString, nastyString, prototypeObject } from './hostile-values.js';
import { deepNest, KeyedObject, RawJson } from './json-text.js';

const EVENT_TYPES = ['training_stats_scalar', 'training_stats_vector', 'training_debug_image', 'plot', 'log'];

const eventType: fc.Arbitrary<SymbolicTree> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...EVENT_TYPES) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('training stats scalar', 'LOG', ' log', 'log ', 'training_stats_scalar\u0000', ''),
  },
  { weight: 1, arbitrary: anyJson },
);

/** Events never delete, so they may name the caller's own witnesses exactly (poison beside well-formed siblings). */
const eventTask: fc.Arbitrary<SymbolicTree> = fc.oneof(
  { weight: 8, arbitrary: idRef(['target', 'witness', 'witness', 'model'], { destructive: false }) },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: anyJson },
);

const timestampValue: fc.Arbitrary<SymbolicTree> = fc.oneof(
  hostileNumber,
  fc.constantFrom(
    '2024-06-10T06:13:20.200Z',
    '2024-13-45T99:99:99Z',
    '+275760-09-13T00:00:00.001Z',
    '-271821-04-20T00:00:00Z',
    '1e20',
    '2024-06-10',
    'now',
    '1718000000000',
    '  1718000000000  ',
  ),
  fc.constantFrom(1e20, 2 ** 63, -(2 ** 63), 8.64e15 + 1, -1),
);

const text = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 1, arbitrary: longString },
  { weight: 1, arbitrary: anyJson },
);

/** One hostile event as a JSON object (each field present or not, plausible or not). */
export const hostileEvent: fc.Arbitrary<SymbolicTree> = fc
  .record(
    {
      type: eventType,
      task: eventTask,
      model: idRef(['model', 'target'], { destructive: false }),
      model_event: fc.constantFrom<SymbolicTree>(true, false, 'false', 1, 0, null),
      allow_locked: fc.constantFrom<SymbolicTree>(true, false, 'yes', 1),
      iter: fc.oneof(fc.integer({ min: -3, max: 1000 }), hostileNumber, anyJson),
      timestamp: timestampValue,
      ts: timestampValue,
      metric: fc.oneof(fc.constantFrom('loss', 'm', ''), text),
      variant: fc.oneof(fc.constantFrom('v', 'train'), text),
      value: fc.oneof(fc.double(), hostileNumber, anyJson),
      values: fc.oneof(
        fc.array(fc.oneof(fc.double(), hostileNumber), { maxLength: 5 }),
        anyJson,
        fc
          .constantFrom(1_000, 100_000)
          .map((n) => new RawJson(`[${Array.from({ length: n }, (_, i) => i).join(',')}]`)),
      ),
      worker: text,
      msg: text,
      level: fc.oneof(fc.constantFrom('info', 'error', 'INFO', ''), text),
      url: fc.oneof(
        fc.constantFrom('https://files.example.com/a.png', 'javascript:alert(1)', 'file:///etc/passwd', ''),
        text,
      ),
      key: text,
      plot_str: fc.oneof(
        fc.constantFrom(
          '{"data": [], "layout": {}}',
          '{"layout": {"images": [{"source": "https://x/y.png"}]}}',
          'not json',
        ),
        fc.constant(deepNest(10_000, 'array').text),
        text,
      ),
      skip_validation: anyJson,
      x_axis_label: text,
    },
    { requiredKeys: [] },
  )
  .chain((event) =>
    fc
      .option(prototypeObject, { freq: 8 })
      .map((proto) =>
        proto === null
          ? event
          : (new KeyedObject([...Object.entries(event), ...proto.entries] as Array<[string, never]>) as SymbolicTree),
      ),
  );

const ownWitness = fc.nat(3).map((index) => new IdRef('own', 'witness', index));
const anyOwn = fc
  .tuple(fc.constantFrom<'target' | 'witness'>('target', 'witness'), fc.nat(3))
  .map(([pool, index]) => new IdRef('own', pool, index));
const entityOfPoison = fc.oneof(
  { weight: 3, arbitrary: ownWitness },
  { weight: 1, arbitrary: anyOwn },
  { weight: 1, arbitrary: idRef(['witness', 'target'], { destructive: false }) },
);

/**
 * Events reported to pass the ingest checks of today's code while a store
 * refuses them (issue 10): non-finite values after parsing, timestamps no
 * stream id or time field takes, names longer than a key or tag may be.
 * Each is a list: some only poison in pairs (two 1e308 scalars overflow a sum).
 */
export const poisonEvents: fc.Arbitrary<SymbolicTree[]> = fc
  .tuple(entityOfPoison, fc.nat(1_000_000))
  .chain(([task, n]) =>
    fc.constantFrom<SymbolicTree[]>(
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'p', variant: 'v', value: '1e999' }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'p', variant: 'v', value: new RawJson('1e999') }],
      [
        { type: 'training_stats_scalar', task, iter: n, metric: 'big', variant: 'v', value: 1e308 },
        { type: 'training_stats_scalar', task, iter: n + 1, metric: 'big', variant: 'v', value: 1e308 },
      ],
      [
        { type: 'training_stats_scalar', task, iter: n, metric: 'big', variant: 'v', value: -1.7976931348623157e308 },
        {
          type: 'training_stats_scalar',
          task,
          iter: n + 1,
          metric: 'big',
          variant: 'v',
          value: -1.7976931348623157e308,
        },
      ],
      [{ type: 'log', task, msg: 'ts 1e20', timestamp: 1e20 }],
      [{ type: 'log', task, msg: 'ts -1', timestamp: -1 }],
      [{ type: 'log', task, msg: 'ts 2^63', timestamp: new RawJson('9223372036854775808') }],
      [
        {
          type: 'training_stats_scalar',
          task,
          iter: n,
          metric: 'ts',
          variant: 'v',
          value: 1,
          timestamp: new RawJson('9223372036854775808'),
        },
      ],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'ts', variant: 'v', value: 1, timestamp: 1e20 }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'x'.repeat(70_000), variant: 'v', value: 1 }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'm', variant: 'v'.repeat(70_000), value: 1 }],
      [
        {
          type: 'training_debug_image',
          task,
          iter: n,
          metric: 'img',
          variant: 'v',
          key: 'k'.repeat(70_000),
          url: 'https://x/y.png',
        },
      ],
      [{ type: 'log', task, msg: 'w', worker: 'w'.repeat(70_000) }],
      [{ type: 'log', task, msg: 'l', level: 'l'.repeat(70_000) }],
      [
        {
          type: 'training_stats_scalar',
          task,
          iter: new RawJson('9223372036854775807'),
          metric: 'it',
          variant: 'v',
          value: 1,
        },
      ],
      [
        {
          type: 'training_stats_scalar',
          task,
          iter: new RawJson('-9223372036854775808'),
          metric: 'it',
          variant: 'v',
          value: 1,
        },
      ],
      [
        {
          type: 'training_stats_vector',
          task,
          iter: n,
          metric: 'vec',
          variant: 'v',
          values: [1e308, 1e308, new RawJson('1e999')],
        },
      ],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'x\\', variant: 'v\\', value: 1 }],
      [{ type: 'training_stats_scalar', task, iter: n, metric: 'x,c=other m=y', variant: 'v v=w', value: 1 }],
      [{ type: 'plot', task, iter: n, metric: 'pl', variant: 'v', plot_str: deepNest(10_000, 'object').text }],
    ),
  );

/** An ndjson line that is not a valid event object at all. */
export const brokenLine: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '[]',
    '[1]',
    '1',
    '1.5',
    '"s"',
    'null',
    'true',
    '{"type":"log","task":"x"',
    '{"a":1}{"b":2}',
    '\u0000',
    '\uFEFF{"type":"log"}',
    '{"type":"log",}',
  ),
  fc.constant(deepNest(10_000, 'array').text),
  fc.constant(deepNest(10_000, 'object').text),
  hostileString,
);

export { anyJson as anyEventValue };
