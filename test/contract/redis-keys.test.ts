/**
 * Key disjointness (hostile-input issue, "Keys that cannot collide"): no
 * id, name or company, whatever characters it holds, makes a key builder
 * produce another entity's, project's or company's key. Every builder of
 * the service is listed here (shared, reports, writer), so a new builder
 * that breaks the layout's rules fails this test.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { writerKeys } from '../../ingest/writer/writer-keys.js';
import { reportKeys } from '../../query/reports/store/report-keys.js';
import { keyPart, redisKeys } from '../../shared/stores/redis-keys.js';

const PREFIX = 'clearml';

/** Strings an attacker would try: key syntax, encodings of it, other keys' suffixes, and arbitrary UTF-16. */
const fragment = fc.constantFrom(
  ':',
  '{',
  '}',
  '%',
  '%003a',
  '%007b',
  '*',
  ' ',
  '\n',
  '\u0000',
  'lm',
  'mv',
  'ii',
  'iu',
  'log',
  'logn',
  'n',
  '0',
  '1',
  't',
  'm',
  'c',
  'p',
  'tasks',
  'nav',
  'a',
  '\ud800',
  '😀',
);
const hostile = fc.oneof(
  fc.array(fragment, { maxLength: 6 }).map((parts) => parts.join('')),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 8 }),
  fc.string({ maxLength: 8 }),
);

type Descriptor = readonly [string, ...(string | number)[]];

/** Every key builder, as (descriptor -> key). */
function keyOf(d: Descriptor): string {
  const shared = redisKeys(PREFIX);
  const reports = reportKeys(PREFIX);
  const [kind, a = '', b = '', c = ''] = d as [string, string, string | number, string];
  const ns = (x: unknown) => (x === 'm' ? 'm' : 't');
  switch (kind) {
    case 'entity':
      return shared.entity(a, ns(b), c);
    case 'lastMetrics':
      return shared.lastMetrics(a, ns(b), c);
    case 'metricListing':
      return shared.metricListing(a, ns(b), c);
    case 'imageIndex':
      return shared.imageIndex(a, ns(b), c);
    case 'imageIndexUrls':
      return shared.imageIndexUrls(a, ns(b), c);
    case 'owner':
      return shared.owner(ns(b), a);
    case 'logSegment':
      return shared.logSegment(a, Number(b));
    case 'logSegmentCount':
      return shared.logSegmentCount(a);
    case 'companyEntities':
      return shared.companyEntities(a, ns(b));
    case 'navigation':
      return shared.navigation(a, String(b));
    case 'project':
      return shared.project(a, String(b));
    case 'projectTasks':
      return shared.projectTasks(a, String(b));
    case 'controlResult':
      return shared.controlResult(a);
    case 'reportScroll':
      return shared.reportScroll(a, String(b));
    case 'userNames':
      return shared.userNames;
    case 'companyNames':
      return shared.companyNames;
    case 'reports':
    case 'reportNames':
    case 'reportTags':
    case 'reportVersion':
    case 'reportChanges':
    case 'reportChangesFloor':
    case 'projectNames':
    case 'projectAliases':
    case 'projectVersion':
      return reports[kind](a);
    case 'writerLease':
      return writerKeys(PREFIX, a).lease(Number(b));
    case 'writerLive':
      return writerKeys(PREFIX, a).liveWriters;
    default:
      throw new Error(`unknown builder ${kind}`);
  }
}

const namespace = fc.constantFrom('t', 'm');
const segment = fc.nat({ max: 12 });
const descriptor: fc.Arbitrary<Descriptor> = fc.oneof(
  fc.tuple(
    fc.constantFrom('entity', 'lastMetrics', 'metricListing', 'imageIndex', 'imageIndexUrls'),
    hostile,
    namespace,
    hostile,
  ),
  fc.tuple(fc.constantFrom('companyEntities', 'owner'), hostile, namespace),
  fc.tuple(fc.constant('logSegment'), hostile, segment),
  fc.tuple(fc.constantFrom('logSegmentCount', 'controlResult', 'writerLive'), hostile),
  fc.tuple(fc.constantFrom('navigation', 'reportScroll', 'project', 'projectTasks'), hostile, hostile),
  fc.tuple(
    fc.constantFrom(
      'reports',
      'reportNames',
      'reportTags',
      'reportVersion',
      'reportChanges',
      'reportChangesFloor',
      'projectNames',
      'projectAliases',
      'projectVersion',
    ),
    hostile,
  ),
  fc.tuple(fc.constant('writerLease'), hostile, segment),
  fc.constantFrom<Descriptor>(['userNames'], ['companyNames']),
);

/** What a key means. */
const meaning = (d: Descriptor) => JSON.stringify(d);

const COMPANY_NAMES = [
  'reports',
  'reportNames',
  'reportTags',
  'reportVersion',
  'reportChanges',
  'reportChangesFloor',
  'projectNames',
  'projectAliases',
  'projectVersion',
] as const;

/**
 * Reads a key back into the builder and arguments that made it, following
 * the layout's grammar (docs/storage.md). That such a reader exists and gets
 * every generated key right is what makes the layout injective: a layout
 * where an id could end one part and start the next would give it two
 * readings, and this reader would get one of them wrong.
 */
function parseKey(key: string): Descriptor {
  const fail = (why: string): never => {
    throw new Error(`unreadable key ${JSON.stringify(key)}: ${why}`);
  };
  const decode = (part: string): string => {
    if (!/^(?:[A-Za-z0-9_.-]|%[0-9a-f]{4})*$/.test(part)) fail(`bad part ${part}`);
    return part.replace(/%([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  };
  if (!key.startsWith(`${PREFIX}:`)) fail('prefix');
  const rest = key.slice(PREFIX.length + 1);
  if (rest === '{names}:users') return ['userNames'];
  if (rest === '{names}:companies') return ['companyNames'];
  if (rest.startsWith('{') && !rest.startsWith('{writer:')) {
    const close = rest.indexOf('}');
    if (close < 0) fail('unclosed tag');
    const [kind, ...partPieces] = rest.slice(1, close).split(':');
    const part = decode(partPieces.join(':'));
    if (partPieces.length !== 1) fail('tag has more than one part');
    const after = rest.slice(close + 1);
    if (kind === 't' || kind === 'm') {
      if (after === ':owner') return ['owner', part, kind];
      if (kind === 't' && after === ':log') return ['logSegment', part, 0];
      if (kind === 't' && after === ':logn') return ['logSegmentCount', part];
      const log = /^:log:([1-9]\d*)$/.exec(after);
      if (kind === 't' && log) return ['logSegment', part, Number(log[1])];
      return fail(`entity suffix ${after}`);
    }
    if (kind === 'c') {
      const record = /^:([tmp]):([^:]*)(:lm|:mv|:ii|:iu|:tasks)?$/.exec(after);
      if (record) {
        const [, ns, id, suffix] = record as unknown as [string, 't' | 'm' | 'p', string, string | undefined];
        if (ns === 'p') {
          if (suffix === undefined) return ['project', part, decode(id)];
          if (suffix === ':tasks') return ['projectTasks', part, decode(id)];
          return fail(`project suffix ${suffix}`);
        }
        if (suffix === undefined) return ['entity', part, ns, decode(id)];
        if (suffix === ':lm') return ['lastMetrics', part, ns, decode(id)];
        if (suffix === ':mv') return ['metricListing', part, ns, decode(id)];
        if (suffix === ':ii') return ['imageIndex', part, ns, decode(id)];
        if (suffix === ':iu') return ['imageIndexUrls', part, ns, decode(id)];
        return fail(`record suffix ${suffix}`);
      }
      if (after === ':tasks') return ['companyEntities', part, 't'];
      if (after === ':models') return ['companyEntities', part, 'm'];
      const named = /^:(nav|rscroll):(.*)$/.exec(after);
      if (named) return [named[1] === 'nav' ? 'navigation' : 'reportScroll', part, decode(named[2]!)];
      const suffix = {
        reports: 'reports',
        report_names: 'reportNames',
        report_tags: 'reportTags',
        rv: 'reportVersion',
        rchg: 'reportChanges',
        rfloor: 'reportChangesFloor',
        project_names: 'projectNames',
        project_aliases: 'projectAliases',
        pv: 'projectVersion',
      }[after.slice(1)];
      if (after.startsWith(':') && suffix && (COMPANY_NAMES as readonly string[]).includes(suffix))
        return [suffix, part];
      return fail(`company suffix ${after}`);
    }
    return fail(`tag kind ${kind}`);
  }
  if (rest.startsWith('ctl:')) return ['controlResult', decode(rest.slice(4))];
  const writer = /^\{writer:([^:}]*)\}:(?:lease:(\d+)|(live))$/.exec(rest);
  if (writer)
    return writer[3] ? ['writerLive', decode(writer[1]!)] : ['writerLease', decode(writer[1]!), Number(writer[2])];
  return fail('no rule');
}

/** Redis Cluster's hash tag: the text between the first `{` and the first `}` after it, when not empty. */
function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open < 0) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

describe('Redis key layout', () => {
  it('keyPart is injective and leaves only [A-Za-z0-9_.%-]', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        expect(keyPart(a)).toMatch(/^[A-Za-z0-9_.%-]*$/);
        if (a !== b) expect(keyPart(a)).not.toBe(keyPart(b));
      }),
      { numRuns: 5000 },
    );
    expect(keyPart('0123abcXYZ_.-')).toBe('0123abcXYZ_.-');
  });

  it('every key reads back as the one builder and arguments that made it, whatever the ids, names and companies', () => {
    fc.assert(
      fc.property(descriptor, (d) => {
        expect(meaning(parseKey(keyOf(d)))).toBe(meaning(d));
      }),
      { numRuns: 20_000 },
    );
  });

  it('no two different (builder, arguments) give the same key', () => {
    fc.assert(
      fc.property(fc.array(descriptor, { minLength: 2, maxLength: 40 }), (descriptors) => {
        const seen = new Map<string, string>();
        for (const d of descriptors) {
          const key = keyOf(d);
          const before = seen.get(key);
          if (before !== undefined) expect(before).toBe(meaning(d));
          seen.set(key, meaning(d));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('the crafted ids of the audit cannot reach another task, model or company', () => {
    const k = redisKeys(PREFIX);
    const victim = 'a1b2c3';
    const co = 'victim-co';
    const crafted = [
      `${victim}:lm`,
      `${victim}:mv`,
      `${victim}:1`,
      `${victim}:log`,
      `${victim}:logn`,
      `${victim}}`,
      `{t:${victim}}`,
      `${victim}:log:1`,
      `${victim}:owner`,
    ];
    const victimKeys = new Set([
      k.task(co, victim),
      k.lastMetrics(co, 't', victim),
      k.metricListing(co, 't', victim),
      k.logSegment(victim, 0),
      k.logSegment(victim, 1),
      k.logSegmentCount(victim),
      k.model(co, victim),
      k.owner('t', victim),
      k.owner('m', victim),
    ]);
    for (const id of crafted) {
      for (const company of [co, 'attacker', `${co}}`, `${co}:t`]) {
        const keys = [
          k.task(company, id),
          k.model(company, id),
          k.lastMetrics(company, 't', id),
          k.metricListing(company, 't', id),
          k.owner('t', id),
          k.logSegment(id, 0),
          k.logSegment(id, 1),
          k.logSegmentCount(id),
        ];
        for (const key of keys) expect(victimKeys.has(key)).toBe(false);
      }
    }
  });

  it("a company's records and indexes share its hash slot; an id's owner key and logs share the id's, apart from every company's", () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, namespace, (co, a, b, n) => {
        const k = redisKeys(PREFIX);
        const r = reportKeys(PREFIX);
        const companyKeys = [
          k.entity(co, n, a),
          k.lastMetrics(co, n, a),
          k.metricListing(co, n, a),
          k.imageIndex(co, n, a),
          k.imageIndexUrls(co, n, a),
          k.project(co, b),
          k.projectTasks(co, b),
          k.companyEntities(co, n),
          k.navigation(co, b),
          k.reportScroll(co, b),
          ...COMPANY_NAMES.map((name) => r[name](co)),
        ];
        const companyTags = new Set(companyKeys.map(hashTag));
        expect(companyTags.size).toBe(1);
        expect([...companyTags][0]).toBeDefined();
        const idKeys = [k.owner('t', a), k.logSegment(a, 0), k.logSegment(a, 3), k.logSegmentCount(a)];
        const idTags = new Set(idKeys.map(hashTag));
        expect(idTags.size).toBe(1);
        expect(companyTags.has([...idTags][0])).toBe(false);
        if (a !== b) expect(hashTag(k.owner(n, b))).not.toBe(hashTag(k.owner(n, a)));
        if (co !== b) expect(hashTag(k.entity(b, n, a))).not.toBe([...companyTags][0]);
        expect(hashTag(k.userNames)).toBe(hashTag(k.companyNames));
        // The lease scripts touch several partitions' leases and the live set at once.
        expect(
          new Set(
            [writerKeys(PREFIX, b).lease(0), writerKeys(PREFIX, b).lease(7), writerKeys(PREFIX, b).liveWriters].map(
              hashTag,
            ),
          ).size,
        ).toBe(1);
      }),
      { numRuns: 2000 },
    );
  });
});
