// The request-level ingest rules as f-tests, one row per rule (the per-event checks are in
// event-normalizer.test.ts): §1.3 step 6 beyond the id's form (the entity's status from the
// registry), the §1.3 order in which an event's reason is settled and §2.3's order of reasons,
// §1.8 and §1.9 (whole-request 400/12), §2.3's 400/131, and the distinct-entity cap of the
// hostile-input issue (docs/ingest.md "Bounded resources"). Errors are given as
// `<http>/<subcode> <message>` from the error catalogue.
import { describe, expect, it } from 'vitest';
import type { EntityStatus } from '../../shared/entities/entity-registry.js';
import { isApiError } from '../../shared/errors/error-catalogue.js';
import type { IngestResult } from './ingest-port.js';
import {
  assertEntityRoom,
  entityUsable,
  notAddedError,
  requestRuleError,
  settleOutcome,
  type EntityTally,
  type Tally,
} from './request-rules.js';

/** An entity of the request: one event that passed every check, unless said otherwise. */
const entity = (fields: Partial<EntityTally> = {}): EntityTally => ({
  namespace: 't',
  id: 't1',
  allowLocked: false,
  allowLockedConflict: false,
  valid: 1,
  checked: 1,
  firstChecked: 0,
  late: new Map(),
  status: 'ok',
  ...fields,
});
/** Reasons with their count and the line of their first event. */
const tallies = (...rows: Array<[reason: string, count: number, first: number]>) =>
  new Map<string, Tally>(rows.map(([reason, count, first]) => [reason, { count, first }]));

/** An error as the catalogue answers it. */
function answer(error: unknown): string | undefined {
  if (error === undefined) return undefined;
  if (!isApiError(error)) throw error;
  return `${error.entry.http}/${error.entry.subcode} ${error.message}`;
}

describe('§1.3.6 the entity is usable (the registry says its status)', () => {
  const f = (name: string, status: EntityStatus, allowLocked: boolean, namespace: 't' | 'm', expected: IngestResult) =>
    it(`§1.3.6 ${name}`, () => {
      const named = entity({ status, allowLocked, namespace, id: namespace === 't' ? 't1' : 'm1' });
      expect(entityUsable(named)).toBe(expected.added > 0);
      expect(settleOutcome(new Map(), [named])).toEqual(expected);
    });
  const added = { added: 1, errors: 0, errors_info: {} };
  f('of the caller company', 'ok', false, 't', added);
  f('registered by this request (§1.10)', 'new', false, 't', added);
  f('not registered, no event to register it with', 'unknown', false, 't', added);
  f('registered in another company (§1.10)', 'foreign', false, 't', {
    added: 0,
    errors: 1,
    errors_info: { 'Invalid task id t1': 1 },
  });
  f('registered in another company, allow_locked changes nothing', 'foreign', true, 't', {
    added: 0,
    errors: 1,
    errors_info: { 'Invalid task id t1': 1 },
  });
  f('locked, without allow_locked (§1.9)', 'locked', false, 't', {
    added: 0,
    errors: 1,
    errors_info: { 'Invalid task id t1': 1 },
  });
  f('locked, with allow_locked (§1.9)', 'locked', true, 't', added);
  f('a model of another company', 'foreign', false, 'm', {
    added: 0,
    errors: 1,
    errors_info: { 'Invalid model id m1': 1 },
  });
  f('a locked (published) model', 'locked', false, 'm', {
    added: 0,
    errors: 1,
    errors_info: { 'Invalid model id m1': 1 },
  });
});

describe('§1.3 order of the checks, §2.3 order of the reasons', () => {
  const f = (name: string, early: Map<string, Tally>, entities: EntityTally[], expected: IngestResult) =>
    it(name, () => expect(settleOutcome(early, entities)).toEqual(expected));
  f(
    '§1.3 late checks count only for a usable entity',
    new Map(),
    [entity({ valid: 2, checked: 3, late: tallies(["Invalid value for field 'iter'", 1, 1]) })],
    {
      added: 2,
      errors: 1,
      errors_info: { "Invalid value for field 'iter'": 1 },
    },
  );
  f(
    '§1.3 step 6 before steps 7-10: an unusable entity gives every checked event its reason',
    new Map(),
    [entity({ status: 'foreign', valid: 1, checked: 3, late: tallies(["Invalid value for field 'iter'", 2, 1]) })],
    {
      added: 0,
      errors: 3,
      errors_info: { 'Invalid task id t1': 3 },
    },
  );
  f(
    '§1.3 steps 2-5 before step 6: early reasons stay, whatever the entity',
    tallies(["Event must have a 'type' field", 2, 0]),
    [entity({ status: 'foreign', firstChecked: 2 })],
    {
      added: 0,
      errors: 3,
      errors_info: { "Event must have a 'type' field": 2, 'Invalid task id t1': 1 },
    },
  );
  f(
    '§2.3 reasons in order of their first event, early, entity and late mixed',
    tallies(['Invalid event type x', 1, 3]),
    [
      entity({ id: 'a', status: 'foreign', checked: 1, firstChecked: 5 }),
      entity({
        id: 'b',
        valid: 1,
        checked: 2,
        firstChecked: 0,
        late: tallies(["Missing value for field 'value'", 1, 1]),
      }),
    ],
    {
      added: 1,
      errors: 3,
      errors_info: { "Missing value for field 'value'": 1, 'Invalid event type x': 1, 'Invalid task id a': 1 },
    },
  );
  f(
    '§2.3 one reason of several entities is counted once, at its first event',
    new Map(),
    [
      entity({ id: 'a', checked: 2, firstChecked: 4, late: tallies(["Invalid value for field 'metric'", 1, 5]) }),
      entity({
        id: 'b',
        checked: 2,
        firstChecked: 0,
        late: tallies(["Invalid value for field 'metric'", 2, 2]),
        valid: 0,
      }),
    ],
    {
      added: 1,
      errors: 3,
      errors_info: { "Invalid value for field 'metric'": 3 },
    },
  );
  f('§2.2 errors is the sum of errors_info; none: {}', new Map(), [entity({ valid: 5, checked: 5 })], {
    added: 5,
    errors: 0,
    errors_info: {},
  });
});

describe('§2.3 no event accepted: 400/131', () => {
  const f = (name: string, result: IngestResult, expected: string | undefined) =>
    it(`§2.3 ${name}`, () => expect(answer(notAddedError(result))).toBe(expected));
  f(
    'every reason with its count, in order',
    { added: 0, errors: 3, errors_info: { 'Invalid event type x': 2, "Event must have a 'type' field": 1 } },
    "400/131 Events not added: Invalid event type x=2, Event must have a 'type' field=1",
  );
  f(
    'one reason',
    { added: 0, errors: 1, errors_info: { "Field 'timestamp' out of range (0 to 253402300799999 ms)": 1 } },
    "400/131 Events not added: Field 'timestamp' out of range (0 to 253402300799999 ms)=1",
  );
  f('one event accepted: no error', { added: 1, errors: 5, errors_info: { 'Invalid event type x': 5 } }, undefined);
});

describe('§1.8 and §1.9: whole-request consistency (400/12, nothing stored)', () => {
  const f = (name: string, entities: EntityTally[], expected: string | undefined) =>
    it(name, () => expect(answer(requestRuleError(entities))).toBe(expected));
  f(
    '§1.8 one id as task and as model',
    [entity({ id: 'x' }), entity({ id: 'x', namespace: 'm' })],
    '400/12 Validation error (Inconsistent model_event setting in the passed events): tasks=(x)',
  );
  f(
    '§1.8 every such id is listed',
    [
      entity({ id: 'x' }),
      entity({ id: 'y' }),
      entity({ id: 'x', namespace: 'm' }),
      entity({ id: 'y', namespace: 'm' }),
    ],
    '400/12 Validation error (Inconsistent model_event setting in the passed events): tasks=(x, y)',
  );
  f(
    '§1.8 task and model events of different ids mix freely',
    [entity({ id: 'x' }), entity({ id: 'y', namespace: 'm' })],
    undefined,
  );
  f(
    '§1.9 one entity with two allow_locked values',
    [entity({ id: 'x' }), entity({ id: 'y', allowLockedConflict: true })],
    '400/12 Validation error (Inconsistent allow_locked setting in the passed events for y)',
  );
  f('§1.9 different entities may differ', [entity({ id: 'x', allowLocked: true }), entity({ id: 'y' })], undefined);
  f(
    '§1.8 is checked before §1.9',
    [entity({ id: 'x', allowLockedConflict: true }), entity({ id: 'x', namespace: 'm' })],
    '400/12 Validation error (Inconsistent model_event setting in the passed events): tasks=(x)',
  );
});

describe('limit: distinct entities per request (INGEST_MAX_ENTITIES_PER_REQUEST)', () => {
  const f = (name: string, named: number, limit: number, expected: string | undefined) =>
    it(`limit (entities per request): ${name}`, () => {
      let error: unknown;
      try {
        assertEntityRoom(named, limit);
      } catch (thrown) {
        error = thrown;
      }
      expect(answer(error)).toBe(expected);
    });
  f('the last one within the cap', 9_999, 10_000, undefined);
  f(
    'one more than the cap: 413/0',
    10_000,
    10_000,
    '413/0 Too many entities in one request (limit 10000 distinct task or model ids)',
  );
  f('a cap of 1', 1, 1, '413/0 Too many entities in one request (limit 1 distinct task or model ids)');
});
