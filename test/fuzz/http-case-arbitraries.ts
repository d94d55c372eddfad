/**
 * Generators of whole HTTP requests, one per class of hostile input. Each
 * class is named (`--skip <class>` leaves it out; failures are grouped by
 * it) and covers every registered operation it applies to.
 */
import fc from 'fast-check';
import { brokenLine, hostileEvent, poisonEvents } from './event-values.js';
import { fieldValue, forgedScroll, idRef, idMutation, scrollRef, wrongValue } from './field-values.js';
import { IdRef, KeyedSymbolic, type CompanyKey, type SymbolicTree } from './fuzz-world.js';
import { deepJson, hostileString, PROTOTYPE_KEYS, prototypeObject } from './hostile-values.js';
import { SiblingSlot, type AuthKind, type BodySpec, type HttpCase, type QueryPart } from './http-case.js';
import { KeyedObject } from './json-text.js';
import { fieldsOf, type RegisteredOperation } from './operation-catalogue.js';

const LEGIT_AUTH: AuthKind[] = ['bearer', 'bearer', 'bearer', 'basic', 'cookie'];
const HOSTILE_AUTH: AuthKind[] = [
  'none',
  'forged-signature',
  'alg-none',
  'expired',
  'foreign-claims',
  'garbage-bearer',
  'lowercase-bearer',
  'basic-bad-base64',
  'basic-wrong-secret',
  'basic-no-colon',
  'huge-bearer',
  'bearer-plus-foreign-cookie',
  'cookie-garbage',
  'empty-authorization',
  'unicode-authorization',
];
const CONTENT_TYPES = [
  'application/json',
  'application/json-lines',
  'application/json-lines; charset=utf-8',
  'application/x-ndjson',
  'application/ndjson',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=zz',
  'multipart/form-data',
  'text/plain',
  'application/octet-stream',
  '',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  '*/*',
  'application/json, application/json-lines',
  'application/json-lines;',
  ';',
  'application/\u0000json',
  'application/x-www-form-urlencoded; charset=utf-16',
];
const METHODS = ['GET', 'POST', 'PUT'];

const legitAuth = fc.constantFrom(...LEGIT_AUTH);
const caller = fc.constantFrom<CompanyKey>('a', 'b');
const path = fc.constantFrom('/{op}', '/v2.23/{op}', '/v2.31/{op}', '/v1.0/{op}', '/{op}/', '/v999.999/{op}');

function base(cls: string, op: string, overrides: Partial<HttpCase> = {}): fc.Arbitrary<HttpCase> {
  return fc.record({ method: fc.constantFrom(...METHODS), path, auth: legitAuth, caller }).map((r) => ({
    transport: 'http' as const,
    cls,
    op,
    method: r.method,
    path: r.path,
    auth: r.auth,
    caller: r.caller,
    headers: [['content-type', 'application/json']] as Array<[string, string]>,
    query: [] as QueryPart[],
    body: { kind: 'none' } as BodySpec,
    ...overrides,
  }));
}

/** A request object for the operation: each field present or not, plausible or hostile (or all wrong). */
function requestObject(
  op: RegisteredOperation,
  mode: 'plausible' | 'wrong',
): fc.Arbitrary<Record<string, SymbolicTree>> {
  const { fields, destructive } = fieldsOf(op);
  const entries = Object.entries(fields).map(([name, kind]) =>
    fc
      .option(mode === 'plausible' ? fieldValue(kind, { destructive }) : wrongValue(), { freq: 3, nil: undefined })
      .map((value) => [name, value] as const),
  );
  return fc
    .tuple(...entries)
    .map(
      (pairs) => Object.fromEntries(pairs.filter(([, value]) => value !== undefined)) as Record<string, SymbolicTree>,
    );
}

/** Places call data in the JSON body, the query string, a form, or split between body and query. */
function placed(
  c: HttpCase,
  data: Record<string, SymbolicTree> | KeyedObject,
  where: 'body' | 'query' | 'form' | 'split',
): HttpCase {
  if (where === 'body' || (where === 'split' && data instanceof KeyedObject))
    return { ...c, body: { kind: 'json', tree: data } };
  if (where === 'query') return { ...c, query: [{ key: '', value: data }] };
  if (where === 'form')
    return {
      ...c,
      headers: [['content-type', 'application/x-www-form-urlencoded']],
      body: { kind: 'form', parts: [{ key: '', value: data }] },
    };
  const entries = Object.entries(data as Record<string, SymbolicTree>);
  const half = Math.ceil(entries.length / 2);
  return {
    ...c,
    body: { kind: 'json', tree: Object.fromEntries(entries.slice(0, half)) },
    query: [{ key: '', value: Object.fromEntries(entries.slice(half)) }],
  };
}

const placement = fc.constantFrom<'body' | 'query' | 'form' | 'split'>(
  'body',
  'body',
  'body',
  'query',
  'form',
  'split',
);

function jsonOps(ops: RegisteredOperation[]): RegisteredOperation[] {
  return ops.filter((op) => op.name !== 'events.add_batch');
}

function fieldsClass(ops: RegisteredOperation[], mode: 'plausible' | 'wrong'): fc.Arbitrary<HttpCase> {
  return fc
    .constantFrom(...jsonOps(ops))
    .chain((op) =>
      fc
        .tuple(
          base(mode === 'plausible' ? 'fields' : 'wrong-types', op.name),
          op.name === 'events.add' ? hostileEvent : requestObject(op, mode),
          placement,
        )
        .map(([c, data, where]) => placed(c, data as Record<string, SymbolicTree> | KeyedObject, where)),
    );
}

/** Prototype keys as own keys of JSON bodies, nested values, and path-like field values. */
function prototypeBodyClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  return fc.constantFrom(...jsonOps(ops)).chain((op) =>
    fc
      .tuple(
        base('prototype-body', op.name),
        requestObject(op, 'plausible'),
        prototypeObject,
        fc.constantFrom(...PROTOTYPE_KEYS),
        fc.constantFrom(...Object.keys(fieldsOf(op).fields), 'x'),
      )
      .map(([c, data, proto, key, field]) => {
        const tree = new KeyedSymbolic([
          ...Object.entries(data),
          ...proto.entries,
          [key, { polluted: '1', authorization: 'Bearer x' }],
          [field, proto],
        ]);
        return { ...c, body: { kind: 'json', tree } as BodySpec };
      }),
  );
}

/** Prototype keys in query-string and form names: dotted paths, `[]` lists, nested under a field. */
function prototypeQueryClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const name = fc.constantFrom(
    '__proto__.x',
    '__proto__.polluted',
    '__proto__.authorization',
    '__proto__.x-clearml-act-as',
    'constructor.prototype.x',
    'a.__proto__.b',
    '__proto__[]',
    'prototype.x',
    '__proto__',
    'task.__proto__.toString',
    'metrics.constructor.prototype.y',
  );
  return fc.constantFrom(...jsonOps(ops)).chain((op) =>
    fc
      .tuple(base('prototype-query', op.name), name, fc.constantFrom('1', 'true', 'Bearer x', ''), fc.boolean())
      .map(([c, key, value, asForm]) => {
        const part: QueryPart = { raw: `${encodeURIComponent(key)}=${encodeURIComponent(value)}` };
        return asForm
          ? {
              ...c,
              headers: [['content-type', 'application/x-www-form-urlencoded']] as Array<[string, string]>,
              body: { kind: 'form', parts: [part] } as BodySpec,
            }
          : { ...c, query: [part] };
      }),
  );
}

function malformedClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const body: fc.Arbitrary<BodySpec> = fc.oneof(
    fc
      .constantFrom(
        '{',
        '{"task":',
        '{"task": "x",}',
        "{'task': 'x'}",
        '[1,2',
        'nul',
        'tru',
        '"unterminated',
        '{"a":1}{"b":2}',
        '\uFEFF{"task":"x"}',
        '{"task":"\\ud800"}',
        '{"task":"\\u0000"}',
        '[]',
        '[{}]',
        '"string"',
        '42',
        'true',
        'null',
        '0',
        '-0',
        '1e999',
        '{"__proto__":',
        ' ',
        '\n\n',
      )
      .map((text) => ({ kind: 'text' as const, text })),
    fc
      .constantFrom('c328', 'eda080', 'ff', 'c0af', '7b227461736b223a22ff227d', 'f4908080', '00')
      .map((hex) => ({ kind: 'bytes' as const, hex })),
    fc.array(brokenLine, { minLength: 1, maxLength: 3 }).map((lines) => ({ kind: 'lines' as const, lines, eol: '\n' })),
  );
  return fc
    .constantFrom(...ops)
    .chain((op) =>
      fc
        .tuple(base('malformed', op.name), body, fc.constantFrom(...CONTENT_TYPES))
        .map(([c, b, type]) => ({ ...c, body: b, headers: [['content-type', type]] as Array<[string, string]> })),
    );
}

function deepClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .tuple(
        base('deep-json', op.name),
        deepJson,
        fc.constantFrom(...Object.keys(fieldsOf(op).fields), 'task', 'x'),
        fc.constantFrom('whole', 'field', 'line'),
      )
      .map(([c, deep, field, where]): HttpCase => {
        if (where === 'whole') return { ...c, body: { kind: 'text', text: deep.text } };
        if (where === 'line')
          return {
            ...c,
            headers: [['content-type', 'application/json-lines']],
            body: { kind: 'lines', lines: [deep.text], eol: '\n' },
          };
        return { ...c, body: { kind: 'json', tree: { [field]: deep } } };
      }),
  );
}

/** Operations and fields that name entities, with adversarial ids only. */
function idsClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const withIds = jsonOps(ops).filter((op) =>
    Object.values(fieldsOf(op).fields).some((k) =>
      ['task', 'tasks', 'model', 'report', 'taskMetricVariants'].includes(k as string),
    ),
  );
  return fc.constantFrom(...withIds).chain((op) => {
    const { fields, destructive } = fieldsOf(op);
    const idField = Object.entries(fields).find(([, k]) =>
      ['task', 'tasks', 'model', 'report', 'taskMetricVariants'].includes(k as string),
    )!;
    const mutated = fc
      .tuple(idRef(['target', 'witness', 'report', 'model'], { destructive }), idMutation)
      .map(([ref, mutation]) => new IdRef(ref.whose, ref.pool, ref.index, mutation));
    const value =
      idField[1] === 'tasks'
        ? fc.array(mutated, { minLength: 1, maxLength: 3 })
        : idField[1] === 'taskMetricVariants'
          ? fc.array(
              mutated.map((task) => ({ task })),
              { minLength: 1, maxLength: 3 },
            )
          : mutated;
    return fc
      .tuple(base('ids', op.name), requestObject(op, 'plausible'), value, placement)
      .map(([c, data, id, where]) => placed(c, { ...data, [idField[0]]: id as SymbolicTree }, where));
  });
}

/** add / add_batch with hostile and poison events, broken lines, and well-formed siblings in the caller's witness tasks. */
function eventsClass(): fc.Arbitrary<HttpCase> {
  const item = fc.oneof({ weight: 5, arbitrary: hostileEvent.map((e) => [e]) }, { weight: 4, arbitrary: poisonEvents });
  const siblings = fc.array(
    fc.nat(3).map((w) => new SiblingSlot(w)),
    { maxLength: 3 },
  );
  return fc
    .tuple(
      base('events', 'events.add_batch'),
      fc.array(item, { minLength: 1, maxLength: 6 }),
      siblings,
      fc.constantFrom('lines', 'lines', 'array', 'single'),
      fc.constantFrom('\n', '\r\n', '\r', '\n\n'),
      fc.option(brokenLine, { freq: 12, nil: undefined }),
    )
    .map(([c, groups, slots, shape, eol, broken]): HttpCase => {
      const events: Array<SymbolicTree | SiblingSlot> = groups.flat();
      slots.forEach((slot, i) => events.splice(Math.min(events.length, i * 2 + 1), 0, slot));
      if (shape === 'single')
        return {
          ...c,
          op: 'events.add',
          body: { kind: 'json', tree: events.find((e): e is SymbolicTree => !(e instanceof SiblingSlot))! },
        };
      if (shape === 'array') return { ...c, body: { kind: 'array', items: events } };
      const lines: Array<SymbolicTree | string | SiblingSlot> = broken === undefined ? events : [...events, broken];
      return { ...c, headers: [['content-type', 'application/json-lines']], body: { kind: 'lines', lines, eol } };
    });
}

function oversizeClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .tuple(base('oversize', op.name), fc.constantFrom<'body' | 'line'>('body', 'line'), fc.boolean())
      .map(([c, what, lines]): HttpCase => {
        const asLines = op.name === 'events.add_batch' && (lines || what === 'line');
        return {
          ...c,
          headers: [['content-type', asLines ? 'application/json-lines' : 'application/json']],
          body: { kind: 'oversize', what: asLines ? what : 'body', shape: asLines ? 'lines' : 'json' },
        };
      }),
  );
}

/**
 * Text that JSON.parse would turn into a great many objects or lists, and add_batch into a great many
 * events: below, near and far beyond the bound of docs/protocol.md ("Objects and lists are bounded by
 * the text's length"), as far as the body limit lets it go.
 */
function manyContainersClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const count = fc.constantFrom(2_000, 9_000, 40_000, 10_000_000);
  const item = fc.constantFrom<'{}' | '[]'>('{}', '[]');
  const placedInRequest = fc.constantFrom(...ops).chain((op) =>
    fc
      .tuple(
        base('many-containers', op.name),
        count,
        item,
        fc.constantFrom<'field' | 'line' | 'lines'>('field', 'line', 'lines'),
        fc.constantFrom(...Object.keys(fieldsOf(op).fields), 'x'),
      )
      .map(([c, n, it, where, field]): HttpCase => ({
        ...c,
        headers: where === 'field' ? c.headers : [['content-type', 'application/json-lines']],
        body: { kind: 'many-containers', count: n, item: it, where, field },
      })),
  );
  const asPlot = fc.tuple(base('many-containers', 'events.add'), count, item).map(([c, n, it]): HttpCase => ({
    ...c,
    body: { kind: 'many-containers', count: n, item: it, where: 'plot', field: 'plot_str' },
  }));
  return fc.oneof({ weight: 4, arbitrary: placedInRequest }, { weight: 1, arbitrary: asPlot });
}

function manyEntitiesClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const lists = jsonOps(ops).filter((op) => Object.values(fieldsOf(op).fields).includes('tasks'));
  return fc.oneof(
    fc
      .tuple(base('many-entities', 'events.add_batch'), fc.constantFrom(1_000, 5_000, 20_000, 40_000))
      .map(([c, count]): HttpCase => ({
        ...c,
        headers: [['content-type', 'application/json-lines']],
        body: { kind: 'many-entities', count, shape: 'lines' },
      })),
    fc
      .constantFrom(...lists)
      .chain((op) =>
        fc
          .tuple(base('many-entities', op.name), fc.constantFrom(1_000, 10_000, 30_000))
          .map(([c, count]): HttpCase => ({ ...c, body: { kind: 'many-entities', count, shape: 'tasks-field' } })),
      ),
  );
}

function scrollClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const scrolling = jsonOps(ops).filter((op) => fieldsOf(op).fields.scroll_id === 'scroll');
  return fc
    .constantFrom(...scrolling)
    .chain((op) =>
      fc
        .tuple(
          base('scroll', op.name),
          requestObject(op, 'plausible'),
          fc.oneof({ weight: 3, arbitrary: scrollRef }, { weight: 1, arbitrary: forgedScroll }),
          placement,
        )
        .map(([c, data, scroll, where]) => placed(c, { ...data, scroll_id: scroll as SymbolicTree }, where)),
    );
}

function authClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const extra = fc.array(
    fc.oneof(
      fc.constantFrom<[string, string]>(
        ['x-clearml-impersonate-as', 'x'],
        ['x-clearml-act-as', 'u'],
        ['x-trains-impersonate-as', ''],
        ['x-trains-act-as', 'root'],
        ['X-ClearML-Act-As', '__proto__'],
      ),
      hostileString.map((v): [string, string] => ['x-clearml-trx', v.replace(/[\r\n]/g, '')]),
      hostileString.map((v): [string, string] => ['x-clearml-worker', v.replace(/[\r\n]/g, '')]),
    ),
    { maxLength: 2 },
  );
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .tuple(
        base('auth', op.name),
        fc.constantFrom(...HOSTILE_AUTH, ...LEGIT_AUTH),
        extra,
        requestObject(op, 'plausible'),
      )
      .map(([c, auth, headers, data]) => ({
        ...placed(c, data, 'body'),
        auth,
        headers: [...c.headers, ...headers],
      })),
  );
}

function contentTypeClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const encoding = fc.option(fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x', 'gzip, identity'), {
    freq: 4,
    nil: undefined,
  });
  return fc.constantFrom(...ops).chain((op) =>
    fc
      .tuple(
        base('content-type', op.name),
        requestObject(op, 'plausible'),
        fc.constantFrom(...CONTENT_TYPES),
        encoding,
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
        fc.constantFrom('json', 'form', 'lines', 'multipart'),
      )
      .map(([c, data, type, enc, method, shape]): HttpCase => {
        const body: BodySpec =
          shape === 'json'
            ? {
                kind: 'json',
                tree:
                  op.name === 'events.add_batch'
                    ? { type: 'log', task: new IdRef('own', 'target', 0), msg: 'ct' }
                    : data,
              }
            : shape === 'form'
              ? { kind: 'form', parts: [{ key: '', value: data }] }
              : shape === 'lines'
                ? {
                    kind: 'lines',
                    lines: [data, { type: 'log', task: new IdRef('own', 'target', 1), msg: 'ct' }],
                    eol: '\n',
                  }
                : { kind: 'text', text: '--zz\r\nContent-Disposition: form-data; name="task"\r\n\r\nx\r\n--zz--\r\n' };
        const headers: Array<[string, string]> = [['content-type', type]];
        if (enc !== undefined) headers.push(['content-encoding', enc]);
        return { ...c, method, headers, body };
      }),
  );
}

function pathClass(ops: RegisteredOperation[]): fc.Arbitrary<HttpCase> {
  const paths = fc.oneof(
    fc.constantFrom(
      '/',
      '',
      '/v2/{op}',
      '/v2.3.1/{op}',
      '/v99999999999999999999.1/{op}',
      '/{op}/extra',
      '/%00',
      '/..%2f{op}',
      '/EVENTS.ADD',
      '//{op}',
      '/v2.23/reports.__proto__',
      '/reports.constructor',
      '/events.toString',
      '/events.hasOwnProperty',
      '/__proto__.x',
      '/{op}%00',
      '/{op}?',
      '/{op}#x',
      '/api/{op}',
      '/v2.23/{op};x=1',
    ),
    fc.constantFrom(100, 10_000, 60_000).map((n) => `/events.${'a'.repeat(n)}`),
    hostileString.map((s) => `/${encodeURIComponent(s.replace(/[\uD800-\uDFFF]/g, ''))}.x`),
  );
  return fc
    .constantFrom(...ops)
    .chain((op) => fc.tuple(base('path', op.name), paths).map(([c, p]) => ({ ...c, path: p })));
}

export const HTTP_CLASSES = [
  'fields',
  'wrong-types',
  'prototype-body',
  'prototype-query',
  'malformed',
  'deep-json',
  'ids',
  'events',
  'oversize',
  'many-entities',
  'many-containers',
  'scroll',
  'auth',
  'content-type',
  'path',
] as const;

export function httpCaseArbitrary(
  ops: RegisteredOperation[],
  skip: ReadonlySet<string>,
): Array<{ cls: string; weight: number; arbitrary: fc.Arbitrary<HttpCase> }> {
  const all = [
    { cls: 'fields', weight: 26, arbitrary: fieldsClass(ops, 'plausible') },
    { cls: 'wrong-types', weight: 8, arbitrary: fieldsClass(ops, 'wrong') },
    { cls: 'prototype-body', weight: 4, arbitrary: prototypeBodyClass(ops) },
    { cls: 'prototype-query', weight: 3, arbitrary: prototypeQueryClass(ops) },
    { cls: 'malformed', weight: 5, arbitrary: malformedClass(ops) },
    { cls: 'deep-json', weight: 3, arbitrary: deepClass(ops) },
    { cls: 'ids', weight: 10, arbitrary: idsClass(ops) },
    { cls: 'events', weight: 14, arbitrary: eventsClass() },
    { cls: 'oversize', weight: 2, arbitrary: oversizeClass(ops) },
    { cls: 'many-entities', weight: 1, arbitrary: manyEntitiesClass(ops) },
    { cls: 'many-containers', weight: 2, arbitrary: manyContainersClass(ops) },
    { cls: 'scroll', weight: 6, arbitrary: scrollClass(ops) },
    { cls: 'auth', weight: 5, arbitrary: authClass(ops) },
    { cls: 'content-type', weight: 4, arbitrary: contentTypeClass(ops) },
    { cls: 'path', weight: 2, arbitrary: pathClass(ops) },
  ];
  return all.filter((entry) => !skip.has(entry.cls));
}
