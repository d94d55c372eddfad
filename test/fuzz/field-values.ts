/**
 * Values for request fields by kind: mostly plausible (so that requests get
 * past validation and reach the stores), often hostile (every wrong type,
 * huge and non-finite numbers, unicode, prototype keys, adversarial ids).
 */
import fc from 'fast-check';
import { ID_MUTATIONS, IdRef, ScrollRef, type IdMutation, type Pool, type SymbolicTree } from './fuzz-world.js';
import {
  anyJson,
  deepJson,
  hostileNumber,
  hostileString,
  longString,
  prototypeObject,
  wrongTypeFor,
} from './hostile-values.js';
import { KeyedObject, RawJson } from './json-text.js';
import type { FieldKind } from './operation-catalogue.js';

export const KNOWN_METRICS = ['loss', 'acc', 'img', 'roc', 'Summary', ':monitor:machine', ''];
export const KNOWN_VARIANTS = ['train', 'val', 'v0', ''];

export interface FieldContext {
  /** Never name the caller's own witness ids exactly (the operation deletes, locks or moves). */
  destructive: boolean;
}

const baseRef = (pools: Pool[]): fc.Arbitrary<IdRef> =>
  fc
    .tuple(fc.constantFrom<'own' | 'foreign'>('own', 'own', 'foreign'), fc.constantFrom(...pools), fc.nat(7))
    .map(([whose, pool, index]) => new IdRef(whose, pool, index));

export const idMutation: fc.Arbitrary<IdMutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ID_MUTATIONS).map((text) => ({ kind: 'suffix' as const, text })) },
  { weight: 2, arbitrary: fc.constantFrom(...ID_MUTATIONS).map((text) => ({ kind: 'prefix' as const, text })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(['{', '}'], ['*', '*'], [' ', ' '], ['\n', '\n'], ['"', '"'])
      .map(([open, close]) => ({ kind: 'wrap' as const, open: open!, close: close! })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'upper' as const }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(127, 128, 129, 256, 4096, 70_000).map((length) => ({ kind: 'long' as const, length })),
  },
  { weight: 2, arbitrary: baseRef(['target', 'witness']).map((other) => ({ kind: 'join' as const, other })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'prefixed-by-company' as const }) },
);

/** An entity reference: exact, or bent into another key. The caller's own witnesses only for non-destructive operations. */
export function idRef(pools: Pool[], context: FieldContext): fc.Arbitrary<IdRef> {
  return fc.tuple(baseRef(pools), fc.option(idMutation, { freq: 2 })).map(([ref, mutation]) => {
    const exactOwnWitness = context.destructive && ref.whose === 'own' && ref.pool === 'witness' && mutation === null;
    return new IdRef(ref.whose, exactOwnWitness ? 'target' : ref.pool, ref.index, mutation ?? undefined);
  });
}

export const scrollRef: fc.Arbitrary<ScrollRef> = fc
  .tuple(
    fc.constantFrom<'own' | 'foreign'>('own', 'foreign'),
    fc.nat(40),
    fc.constantFrom('none', 'none', 'append', 'flip', 'truncate', 'reencode', 'double') as fc.Arbitrary<
      ScrollRef['mutation']
    >,
  )
  .map(([whose, index, mutation]) => new ScrollRef(whose, index, mutation));

/** Forged scroll ids: random hex (a navigation state id that does not exist), JWT look-alikes, nonsense. */
export const forgedScroll: fc.Arbitrary<SymbolicTree> = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{32}$/),
  fc.constantFrom('eyJhbGciOiJub25lIn0.eyJjIjoiYSJ9.', 'eyJ.eyJ.', 'a.b.c', '..', '.', 'null', '0', '-1'),
  fc.tuple(fc.base64String({ maxLength: 60 }), fc.base64String({ maxLength: 60 })).map(([a, b]) => `${a}.${b}`),
  hostileString,
);

const metricName: fc.Arbitrary<SymbolicTree> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_METRICS) },
  { weight: 2, arbitrary: hostileString },
);
const variantName: fc.Arbitrary<SymbolicTree> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_VARIANTS) },
  { weight: 2, arbitrary: hostileString },
);

const metricVariant: fc.Arbitrary<SymbolicTree> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      { metric: metricName, variants: fc.array(variantName, { maxLength: 3 }) },
      { requiredKeys: ['metric'] },
    ),
  },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.record({ metric: wrongTypeFor('string'), variants: wrongTypeFor('list') }) },
);

const many = <T>(item: fc.Arbitrary<T>, count: number): fc.Arbitrary<T[]> =>
  item.map((one) => Array.from({ length: count }, () => one));

const plausibleInt = fc.oneof(
  fc.constantFrom(0, 1, 2, 3, 5, 10, 100, 500, 1000, 6000, 6001, 10_000, 10_001, 200_000, 200_001, -1, -2_147_483_648),
  fc.integer({ min: -5, max: 50 }),
);

const queryList: fc.Arbitrary<SymbolicTree> = fc.oneof(
  fc.array(
    fc.oneof(
      fc.constantFrom<SymbolicTree>(
        '__$not',
        '__$all',
        '__$and',
        '__$any',
        '__$or',
        '__$nope',
        '-',
        '-x',
        null,
        'archived',
        'hidden',
        'created',
        'published',
      ),
      hostileString,
    ),
    { maxLength: 5 },
  ),
  hostileString,
);

const sectionValue = (context: FieldContext): fc.Arbitrary<SymbolicTree> =>
  fc.record(
    {
      iters: fc.oneof(plausibleInt, hostileNumber),
      metrics: fc.array(metricVariant, { maxLength: 3 }),
      samples: fc.oneof(plausibleInt, hostileNumber),
      key: fc.oneof(fc.constantFrom('iter', 'timestamp', 'iso_time', 'ITER'), hostileString),
      last_iters_per_task_metric: anyJson,
      task: idRef(['target', 'witness'], context),
    },
    { requiredKeys: [] },
  );

/** A plausible value of the kind. */
function plausible(kind: FieldKind | 'unknown', context: FieldContext): fc.Arbitrary<SymbolicTree> {
  if (typeof kind === 'object')
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...kind.enum) },
      { weight: 1, arbitrary: fc.constantFrom(...kind.enum).map((v) => v.toUpperCase()) },
    );
  switch (kind) {
    case 'task':
      return idRef(['target', 'target', 'witness', 'model', 'report'], context);
    case 'tasks':
      return fc.oneof(
        {
          weight: 4,
          arbitrary: fc.array(idRef(['target', 'witness', 'model'], context), { minLength: 1, maxLength: 4 }),
        },
        { weight: 1, arbitrary: fc.constantFrom(99, 100, 101, 1000).chain((n) => many(idRef(['target'], context), n)) },
        { weight: 1, arbitrary: fc.constant<SymbolicTree>([]) },
      );
    case 'model':
      return idRef(['model', 'target'], context);
    case 'report':
      return idRef(['report', 'report', 'target'], context);
    case 'project':
      return fc.oneof(idRef(['project'], context), fc.constantFrom<SymbolicTree>(null, '', 'Reports/.reports'));
    case 'projectPath':
      // Depth 10 is the limit (reports.md §1.3); thousands of segments once built ~GB of prefix names.
      return fc.oneof(
        fc.constantFrom<SymbolicTree>('Team A', ' A / B /', '/.reports', 'X/.reports', 'ab', 'a/bc', '//'),
        fc.constantFrom(9, 10, 11, 1_000, 30_000).map((n) => Array.from({ length: n }, (_, i) => `p${i}`).join('/')),
        fc
          .array(fc.oneof(fc.constantFrom('abc', '.reports', ' ', ''), hostileString), { minLength: 1, maxLength: 12 })
          .map((segments) => segments.join('/')),
      );
    case 'metric':
      return metricName;
    case 'variant':
      return variantName;
    case 'strings':
      return fc.array(fc.oneof(fc.constantFrom('a', 'b', 'loss', ''), hostileString), { maxLength: 4 });
    case 'metricVariant':
      return metricVariant;
    case 'metricVariants':
      return fc.oneof(
        { weight: 5, arbitrary: fc.array(metricVariant, { maxLength: 4 }) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(1000, 10_000).chain((n) =>
            many(
              fc.record({
                metric: fc.constantFrom<SymbolicTree>(...KNOWN_METRICS),
                variants: fc.constant<SymbolicTree>(['train']),
              }),
              n,
            ),
          ),
        },
      );
    case 'taskMetricVariants':
      return fc.oneof(
        {
          weight: 5,
          arbitrary: fc.array(
            fc.record(
              {
                task: idRef(['target', 'witness', 'model'], context),
                metric: metricName,
                variants: fc.array(variantName, { maxLength: 3 }),
              },
              { requiredKeys: ['task'] },
            ),
            { maxLength: 4 },
          ),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom(1000, 10_000)
            .chain((n) => many(fc.record({ task: idRef(['target'], context) }), n)),
        },
      );
    case 'int':
      return plausibleInt;
    case 'bool':
      return fc.constantFrom<SymbolicTree>(true, false, 'false', 0, 1, '', 'true');
    case 'timestamp':
      return fc.oneof(fc.constantFrom<SymbolicTree>(0, null, Date.now(), 1, -1), fc.nat());
    case 'scroll':
      return fc.oneof(
        { weight: 4, arbitrary: scrollRef },
        { weight: 2, arbitrary: forgedScroll },
        { weight: 1, arbitrary: fc.constantFrom<SymbolicTree>(null, '') },
      );
    case 'string':
      return fc.oneof(fc.string({ minLength: 3, maxLength: 12 }), hostileString);
    case 'regex':
      return fc.constantFrom<SymbolicTree>(
        'a',
        '(?P<n>x)(?P=n)',
        '(?i)abc',
        '(?x)a',
        '(',
        '[',
        '(a+)+$',
        '.*'.repeat(50),
        '\\',
        '(?<=a)b',
        '\\p{L}',
        '',
        'a{1000000}',
      );
    case 'lineFormat':
      return fc.constantFrom<SymbolicTree>(
        '{asctime} {worker} {level} {msg}',
        '{msg}',
        '',
        '{',
        '}',
        '{}',
        '{0}',
        '{msg!r}',
        '{msg:>20}',
        '{nope}',
        '{{}}',
        '{__class__}',
        '{msg.__class__}',
        '{' + 'msg'.repeat(1000) + '}',
      );
    case 'queryList':
      return queryList;
    case 'filters':
      return fc.oneof(
        fc.record({
          tags: fc.record(
            {
              any: fc.record({ include: queryList, exclude: queryList }),
              all: fc.record({ include: queryList, exclude: queryList }),
              op: fc.constantFrom('and', 'or', 'xor'),
            },
            { requiredKeys: [] },
          ),
        }),
        prototypeObject,
        anyJson,
      );
    case 'multiField':
      return fc.oneof(
        fc.record({
          pattern: fc.oneof(hostileString, fc.constantFrom('(', 'weekly')),
          fields: fc.array(
            fc.constantFrom('id', 'name', 'tags', 'project', 'nope', '__proto__', 'constructor.prototype', ''),
            { maxLength: 4 },
          ),
        }),
        fc.record({
          datetime: fc.constantFrom('>=2024-01-01', 'x'),
          fields: fc.constant<SymbolicTree>(['last_update']),
        }),
        anyJson,
      );
    case 'orderBy':
      return fc.oneof(
        fc.array(
          fc.constantFrom(
            '-last_update',
            'name',
            'id',
            '@text_score',
            '-@text_score',
            '@x',
            '__proto__',
            'constructor',
            'last_metrics.x.y',
            '-',
            '',
          ),
          { maxLength: 4 },
        ),
        hostileString,
      );
    case 'onlyFields':
      return fc.array(
        fc.constantFrom(
          'name',
          'id',
          '-name',
          'project.name',
          'user.name',
          'company.name',
          'last_metrics',
          '__proto__',
          '__proto__.x',
          'constructor.prototype',
          'prototype',
          'project.*',
          '-',
          '',
          'nope.x',
          'execution.*',
        ),
        { maxLength: 5 },
      );
    case 'datetime':
      return fc.oneof(
        fc.array(
          fc.constantFrom<SymbolicTree>(
            '>=2024-01-01',
            '<2024-06-01T00:00:00Z',
            null,
            '1e999',
            '99999999999999999',
            'x',
            '>=+275760-09-13',
          ),
          { maxLength: 3 },
        ),
        hostileString,
      );
    case 'range':
      return fc.oneof(
        fc.tuple(
          fc.constantFrom<SymbolicTree>(null, '2024-01-01', 0, '1e999'),
          fc.constantFrom<SymbolicTree>(null, '2030-01-01', 1e308),
        ),
        anyJson,
      );
    case 'section':
      return fc.oneof({ weight: 4, arbitrary: sectionValue(context) }, { weight: 1, arbitrary: anyJson });
    case 'unknown':
      return anyJson;
  }
}

/** A value for a field: plausible most of the time, hostile otherwise. */
export function fieldValue(kind: FieldKind | 'unknown', context: FieldContext): fc.Arbitrary<SymbolicTree> {
  return fc.oneof(
    { weight: 7, arbitrary: plausible(kind, context) },
    { weight: 1, arbitrary: hostileString },
    { weight: 1, arbitrary: hostileNumber },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.oneof(prototypeObject, fc.constant(new KeyedObject([['__proto__', []]]))) },
  );
}

/** Strictly the wrong type for the field, or an absurd size. */
export function wrongValue(): fc.Arbitrary<SymbolicTree> {
  return fc.oneof(
    { weight: 6, arbitrary: anyJson },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: longString },
    { weight: 1, arbitrary: fc.constant(new RawJson('-0')) },
  );
}
