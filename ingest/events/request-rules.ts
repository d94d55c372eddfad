/**
 * The rules of one add/add_batch request over what its session gathered
 * (events.md §1.3 step 6 and the order of the checks, §1.8, §1.9, §2.2,
 * §2.3), without I/O: the session (ingest-session.ts) tallies the events,
 * asks the registry for each entity's status and publishes; these
 * functions decide. Their table is request-rules.test.ts.
 */
import type { EntityStatus } from '../../shared/entities/entity-registry.js';
import { apiError, type ApiError } from '../../shared/errors/error-catalogue.js';
import type { IngestResult } from './ingest-port.js';

export interface Tally {
  count: number;
  /** line index of the first event with this reason: errors_info lists reasons in that order */
  first: number;
}

/** What the rules know of one entity (namespace and id) a request names. */
export interface EntityTally {
  namespace: 't' | 'm';
  id: string;
  allowLocked: boolean;
  /** another event naming the entity carried a different effective allow_locked */
  allowLockedConflict: boolean;
  /** events that passed every check but the entity's */
  valid: number;
  /** events that reached the entity check (no early error), and the first of them */
  checked: number;
  firstChecked: number;
  /** late-check rejections, which count only when the entity itself is usable */
  late: Map<string, Tally>;
  /** the registry's answer, once asked */
  status?: EntityStatus;
}

/**
 * INGEST_MAX_ENTITIES_PER_REQUEST (docs/ingest.md "Bounded resources"):
 * throws 413/0 when a request that already names `named` distinct entities
 * names one more.
 */
export function assertEntityRoom(named: number, limit: number): void {
  if (named >= limit) throw apiError('too_many_entities', `limit ${limit} distinct task or model ids`);
}

/** §1.8 then §1.9: the request-wide consistency that rejects a whole request (400/12), checked before anything is stored. */
export function requestRuleError(entities: Iterable<EntityTally>): ApiError | undefined {
  const namespacesById = new Map<string, Set<string>>();
  const all = [...entities];
  for (const entity of all) {
    const set = namespacesById.get(entity.id) ?? new Set();
    set.add(entity.namespace);
    namespacesById.set(entity.id, set);
  }
  const both = [...namespacesById].filter(([, set]) => set.size > 1).map(([id]) => id);
  if (both.length > 0)
    return apiError('validation_error', 'Inconsistent model_event setting in the passed events', [['tasks', both]]);
  const conflict = all.find((entity) => entity.allowLockedConflict);
  return conflict === undefined
    ? undefined
    : apiError('validation_error', `Inconsistent allow_locked setting in the passed events for ${conflict.id}`);
}

/** §1.3 step 6 with §1.9 and §1.10: an entity of the caller's company, or a new one, unless locked without allow_locked. */
export function entityUsable(entity: Pick<EntityTally, 'status' | 'allowLocked'>): boolean {
  const { status } = entity;
  return status === 'ok' || status === 'new' || status === 'unknown' || (status === 'locked' && entity.allowLocked);
}

/** The reason every checked event of an unusable entity gets (ClearML's text, whatever made it unusable). */
export function unusableEntityReason(entity: Pick<EntityTally, 'namespace' | 'id'>): string {
  return `${entity.namespace === 't' ? 'Invalid task id' : 'Invalid model id'} ${entity.id}`;
}

/**
 * The answer's counts (§2.2): each event's final reason in the §1.3 order
 * (early checks, then the entity, then the late checks), reasons listed in
 * order of their first event (§2.3).
 */
export function settleOutcome(early: ReadonlyMap<string, Tally>, entities: Iterable<EntityTally>): IngestResult {
  const reasons = new Map<string, Tally>();
  const merge = (reason: string, t: Tally) => {
    const existing = reasons.get(reason);
    if (existing === undefined) reasons.set(reason, { ...t });
    else {
      existing.count += t.count;
      existing.first = Math.min(existing.first, t.first);
    }
  };
  for (const [reason, t] of early) merge(reason, t);
  let added = 0;
  for (const entity of entities) {
    if (entityUsable(entity)) {
      added += entity.valid;
      for (const [reason, t] of entity.late) merge(reason, t);
    } else {
      merge(unusableEntityReason(entity), { count: entity.checked, first: entity.firstChecked });
    }
  }
  const ordered = [...reasons].sort((a, b) => a[1].first - b[1].first);
  const errors = ordered.reduce((sum, [, t]) => sum + t.count, 0);
  return { added, errors, errors_info: Object.fromEntries(ordered.map(([reason, t]) => [reason, t.count])) };
}

/** §2.3: no event accepted, 400/131 with every reason and its count. */
export function notAddedError(result: IngestResult): ApiError | undefined {
  return result.added === 0 ? apiError('events_not_added', undefined, Object.entries(result.errors_info)) : undefined;
}
