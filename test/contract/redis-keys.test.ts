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
const fragment = fc.constantFrom(':', '{', '}', '%', '%003a', '%007b', '*', ' ', '\n', '\u0000', 'lm', 'mv', 'log', 'logn', 'n', '0', '1', 't', 'm', 'c', 'p', 'tasks', 'nav', 'a', '\ud800', '😀');
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
  const [kind, a = '', b = ''] = d as [string, string, string | number];
  const ns = (x: unknown) => (x === 'm' ? 'm' : 't');
  switch (kind) {
    case 'entity':
      return shared.entity(ns(b), a);
    case 'lastMetrics':
      return shared.lastMetrics(ns(b), a);
    case 'metricListing':
      return shared.metricListing(ns(b), a);
    case 'logSegment':
      return shared.logSegment(a, Number(b));
    case 'logSegmentCount':
      return shared.logSegmentCount(a);
    case 'companyEntities':
      return shared.companyEntities(a, ns(b));
    case 'navigation':
      return shared.navigation(a, String(b));
    case 'project':
      return shared.project(a);
    case 'projectTasks':
      return shared.projectTasks(a);
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
  fc.tuple(fc.constantFrom('entity', 'lastMetrics', 'metricListing', 'companyEntities'), hostile, namespace),
  fc.tuple(fc.constant('logSegment'), hostile, segment),
  fc.tuple(fc.constantFrom('logSegmentCount', 'project', 'projectTasks', 'controlResult', 'writerLive'), hostile),
  fc.tuple(fc.constantFrom('navigation', 'reportScroll'), hostile, hostile),
  fc.tuple(fc.constantFrom('reports', 'reportNames', 'reportTags', 'reportVersion', 'reportChanges', 'reportChangesFloor', 'projectNames', 'projectVersion'), hostile),
  fc.tuple(fc.constant('writerLease'), hostile, segment),
  fc.constantFrom<Descriptor>(['userNames'], ['companyNames']),
);

/** What a key means. */
const meaning = (d: Descriptor) => JSON.stringify(d);

const COMPANY_NAMES = ['reports', 'reportNames', 'reportTags', 'reportVersion', 'reportChanges', 'reportChangesFloor', 'projectNames', 'projectVersion'] as const;

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
  if (rest.startsWith('{')) {
    const close = rest.indexOf('}');
    if (close < 0) fail('unclosed tag');
    const [kind, ...partPieces] = rest.slice(1, close).split(':');
    const part = decode(partPieces.join(':'));
    if (partPieces.length !== 1) fail('tag has more than one part');
    const after = rest.slice(close + 1);
    if (kind === 't' || kind === 'm') {
      if (after === '') return ['entity', part, kind];
      if (after === ':lm') return ['lastMetrics', part, kind];
      if (after === ':mv') return ['metricListing', part, kind];
      if (kind === 't' && after === ':log') return ['logSegment', part, 0];
      if (kind === 't' && after === ':logn') return ['logSegmentCount', part];
      const log = /^:log:([1-9]\d*)$/.exec(after);
      if (kind === 't' && log) return ['logSegment', part, Number(log[1])];
      return fail(`entity suffix ${after}`);
    }
    if (kind === 'c') {
      if (after === ':tasks') return ['companyEntities', part, 't'];
      if (after === ':models') return ['companyEntities', part, 'm'];
      const named = /^:(nav|rscroll):(.*)$/.exec(after);
      if (named) return [named[1] === 'nav' ? 'navigation' : 'reportScroll', part, decode(named[2]!)];
      const suffix = { reports: 'reports', report_names: 'reportNames', report_tags: 'reportTags', rv: 'reportVersion', rchg: 'reportChanges', rfloor: 'reportChangesFloor', project_names: 'projectNames', pv: 'projectVersion' }[after.slice(1)];
      if (after.startsWith(':') && suffix && (COMPANY_NAMES as readonly string[]).includes(suffix)) return [suffix, part];
      return fail(`company suffix ${after}`);
    }
    if (kind === 'p') {
      if (after === '') return ['project', part];
      if (after === ':tasks') return ['projectTasks', part];
      return fail(`project suffix ${after}`);
    }
    return fail(`tag kind ${kind}`);
  }
  if (rest === 'names:users') return ['userNames'];
  if (rest === 'names:companies') return ['companyNames'];
  if (rest.startsWith('ctl:')) return ['controlResult', decode(rest.slice(4))];
  const writer = /^writer:([^:]*):(?:lease:(\d+)|(live))$/.exec(rest);
  if (writer) return writer[3] ? ['writerLive', decode(writer[1]!)] : ['writerLease', decode(writer[1]!), Number(writer[2])];
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
    const crafted = [`${victim}:lm`, `${victim}:mv`, `${victim}:1`, `${victim}:log`, `${victim}:logn`, `${victim}}`, `{t:${victim}}`, `${victim}:log:1`];
    const victimKeys = new Set([k.task(victim), k.lastMetrics('t', victim), k.metricListing('t', victim), k.logSegment(victim, 0), k.logSegment(victim, 1), k.logSegmentCount(victim), k.model(victim)]);
    for (const id of crafted) {
      for (const key of [k.task(id), k.model(id), k.lastMetrics('t', id), k.metricListing('t', id), k.logSegment(id, 0), k.logSegment(id, 1), k.logSegmentCount(id)]) {
        expect(victimKeys.has(key)).toBe(false);
      }
    }
  });

  it('every key of one entity shares one hash slot tag, distinct from every other entity, company and project', () => {
    fc.assert(
      fc.property(hostile, hostile, namespace, (a, b, n) => {
        const k = redisKeys(PREFIX);
        const keysOf = (id: string) => [k.entity(n, id), k.lastMetrics(n, id), k.metricListing(n, id), ...(n === 't' ? [k.logSegment(id, 0), k.logSegment(id, 3), k.logSegmentCount(id)] : [])];
        const tags = new Set(keysOf(a).map(hashTag));
        expect(tags.size).toBe(1);
        expect([...tags][0]).toBeDefined();
        if (a !== b) expect(hashTag(k.entity(n, b))).not.toBe([...tags][0]);
        expect(hashTag(k.companyEntities(a, n))).not.toBe(hashTag(k.entity(n, a)));
        expect(hashTag(k.project(a))).not.toBe(hashTag(k.entity(n, a)));
      }),
      { numRuns: 2000 },
    );
  });
});
