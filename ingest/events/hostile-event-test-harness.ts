/**
 * fast-check generators of the events a hostile (or merely careless) client
 * sends: every field of events.md §1.2 plus prototype keys, each either a
 * plausible value or anything JSON can hold, including huge and non-finite
 * numbers, lone surrogates, names that need escaping in line protocol,
 * strings at and beyond the caps, and deeply nested values.
 */
import fc from 'fast-check';
import { EVENT_TYPES, type EventType } from './event-normalizer.js';
import { MAX_ENTITY_ID_LENGTH, MAX_NAME_LENGTH, MAX_TIMESTAMP } from './event-limits.js';

/** Characters that matter somewhere: line-protocol escapes, base64 triggers, Redis key separators, JSON escapes. */
const AWKWARD = [
  ' ',
  ',',
  '=',
  '\\',
  '"',
  "'",
  '\n',
  '\r',
  '\t',
  '\u0000',
  '~',
  ':',
  '{',
  '}',
  '\u2028',
  'é',
  '€',
  '😀',
  '\ud800',
  '\udfff',
  '\u001f',
  '\u007f',
];

const awkwardChar = fc.constantFrom(...AWKWARD);
const awkwardString = fc
  .array(fc.oneof(awkwardChar, fc.string({ maxLength: 3 })), { maxLength: 12 })
  .map((parts) => parts.join(''));

/** Strings around a cap: just below, at and just above it (built from a repeated awkward character). */
const aroundCap = (cap: number) =>
  fc
    .tuple(fc.constantFrom(-1, 0, 1), fc.constantFrom('a', ',', '€', '😀', '\n'))
    .map(([delta, c]) => c.repeat(Math.ceil((cap + delta) / c.length)).slice(0, cap + delta));

export const hostileString = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 4, arbitrary: awkwardString },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: aroundCap(MAX_NAME_LENGTH) },
);

const deep = fc.integer({ min: 1, max: 3000 }).map((depth) => {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = depth % 2 ? [value] : { a: value };
  return value;
});

export const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    2 ** 53,
    2 ** 63,
    -(2 ** 63),
    2 ** 63 - 1024,
    -9.2e18,
    -9.21e18,
    1e20,
    1e308,
    -1e308,
    5e-324,
    -0,
    MAX_TIMESTAMP,
    MAX_TIMESTAMP + 1,
    -1,
    -2_147_483_648,
  ),
);

const numericString = fc.oneof(
  hostileNumber.map(String),
  fc.constantFrom(
    '1e999',
    '-1e400',
    ' 12 ',
    '+7',
    '.5',
    '5.',
    '0x10',
    'Infinity',
    'NaN',
    '',
    '9'.repeat(101),
    '9223372036854775808',
    '1.718e12',
  ),
  fc.date({ min: new Date(-1e14), max: new Date(3e14), noInvalidDate: true }).map((d) => d.toISOString()),
);

/** Any value a field can hold in JSON (or a gRPC double can: NaN, ±Infinity). */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 2, arbitrary: numericString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.array(hostileNumber, { maxLength: 5 }) },
);

const idString = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'a'.repeat(MAX_ENTITY_ID_LENGTH),
      'a'.repeat(MAX_ENTITY_ID_LENGTH + 1),
      '',
      'a:lm',
      'x'.repeat(1000),
    ),
  },
  { weight: 2, arbitrary: hostileString },
);

/** A field that is absent, or plausible, or anything. */
const field = (plausible: fc.Arbitrary<unknown>) =>
  fc.option(fc.oneof({ weight: 3, arbitrary: plausible }, { weight: 1, arbitrary: anyValue }), { nil: undefined });

/** An event object as JSON.parse would hand it over (own properties only; `__proto__` as an own key). */
export const hostileEvent: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      type: field(fc.constantFrom(...EVENT_TYPES, 'training stats scalar', 'nope')),
      task: field(idString),
      model: field(idString),
      model_event: field(fc.boolean()),
      allow_locked: field(fc.boolean()),
      iter: field(fc.oneof(fc.integer(), hostileNumber)),
      timestamp: field(fc.oneof(fc.integer({ min: 0, max: MAX_TIMESTAMP }), numericString)),
      ts: field(fc.integer({ min: 0, max: MAX_TIMESTAMP })),
      metric: field(hostileString),
      variant: field(hostileString),
      worker: field(hostileString),
      value: field(hostileNumber),
      values: field(fc.array(hostileNumber, { maxLength: 8 })),
      x_axis_label: field(hostileString),
      url: field(hostileString),
      key: field(hostileString),
      plot_str: field(
        fc.oneof(
          hostileString,
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
      ),
      skip_validation: field(fc.boolean()),
      level: field(hostileString),
      msg: field(hostileString),
      constructor: fc.option(anyValue, { nil: undefined }),
      prototype: fc.option(anyValue, { nil: undefined }),
      // Computed: a literal `__proto__:` key would set this object's prototype instead.
      ['__proto__']: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
    },
    { requiredKeys: [] },
  )
  .map((record) => {
    // Rebuilt through JSON-like own-property definition, as JSON.parse does (never via the prototype setter).
    const raw: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(record)) {
      if (value !== undefined)
        Object.defineProperty(raw, name, { value, enumerable: true, writable: true, configurable: true });
    }
    return raw;
  });

/** The string fields of one type (events.md §1.2); every event is checked for all of them (§1.3 step 9). */
const TYPE_TEXT_FIELDS: Readonly<Record<EventType, readonly string[]>> = {
  training_stats_scalar: [],
  training_stats_vector: [],
  training_debug_image: ['url', 'key'],
  plot: ['plot_str'],
  log: ['level', 'msg'],
};
const TEXT_FIELDS = ['url', 'key', 'plot_str', 'level', 'msg'];

/** Events that pass more often: a valid type and task, hostile everything else of that type (other types' fields left out). */
export const mostlyValidEvent: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(hostileEvent, fc.constantFrom(...EVENT_TYPES), fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/))
  .map(([raw, type, task]) => {
    Object.defineProperty(raw, 'type', { value: type, enumerable: true, writable: true, configurable: true });
    Object.defineProperty(raw, 'task', { value: task, enumerable: true, writable: true, configurable: true });
    if (raw.model_event === true && type === 'log') raw.model_event = false;
    for (const name of TEXT_FIELDS) if (!TYPE_TEXT_FIELDS[type].includes(name)) delete raw[name];
    return raw;
  });
