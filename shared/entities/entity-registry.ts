/**
 * Task and model ids are global: an id is registered in at most one company
 * (events.md §1.10). Ingest checks every entity a request names, and
 * registers the new ones, before it answers: one script per entity decides
 * atomically on that entity's record (two companies racing for a new id get
 * exactly one winner) and reports whether it is locked (events.md §1.9).
 *
 * The scripts of a request go out in pipelines of CHUNK entities, so a
 * request naming many entities never builds one huge call. Each script
 * touches only its entity's record (one hash slot); the company's index set
 * is a separate key, so the ids about to be registered are added to it
 * first: a crash between the two steps leaves an id in the index that the
 * company does not own (readers check the record's company), never an owned
 * id missing from it.
 */
import { LuaScript } from '../stores/lua-script.js';
import type { RedisClient } from '../stores/redis-store.js';
import { redisKeys, type Namespace, type RedisKeys } from '../stores/redis-keys.js';

export type EntityStatus = 'ok' | 'new' | 'locked' | 'foreign' | 'unknown';

export interface EntityRequest {
  namespace: Namespace;
  id: string;
  /** register when unknown (the entity has at least one event passing every other check) */
  register: boolean;
}

/** Entities per pipeline: bounds the memory and the Redis time of one round trip. */
const CHUNK = 500;

// KEYS[1] the entity record. ARGV: company, user, now (ms), namespace, id, '1' to register.
// Implicit records as reports.md §6.1 / §6.2 list them.
const CHECK_AND_REGISTER = new LuaScript(`
local company, user, now, ns, id, reg = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local fields = redis.call('HMGET', KEYS[1], 'company', 'status', 'ready')
local owner = fields[1]
if not owner then
  if reg ~= '1' then return 'unknown' end
  if ns == 't' then
    redis.call('HSET', KEYS[1], 'id', id, 'company', company, 'user', user, 'name', id, 'type', 'training',
      'status', 'in_progress', 'created', now, 'started', now, 'last_update', now, 'last_change', now,
      'last_changed_by', user, 'last_iteration', '0', 'tags', '[]', 'system_tags', '[]')
  else
    redis.call('HSET', KEYS[1], 'id', id, 'company', company, 'user', user, 'name', id, 'created', now,
      'last_update', now, 'last_change', now, 'last_changed_by', user, 'last_iteration', '0', 'uri', '',
      'ready', '0', 'tags', '[]', 'system_tags', '[]')
  end
  return 'new'
end
if owner ~= company then return 'foreign' end
if (ns == 't' and (fields[2] == 'published' or fields[2] == 'publishing')) or (ns == 'm' and fields[3] == '1') then
  return 'locked'
end
return 'ok'
`);

export class EntityRegistry {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** Status of each requested entity, registering the new ones that ask for it; order follows the input. */
  async checkAndRegister(company: string, user: string, now: number, entities: readonly EntityRequest[]): Promise<EntityStatus[]> {
    const statuses: EntityStatus[] = [];
    for (let start = 0; start < entities.length; start += CHUNK) {
      statuses.push(...(await this.checkChunk(company, user, String(now), entities.slice(start, start + CHUNK))));
    }
    return statuses;
  }

  private async checkChunk(company: string, user: string, now: string, chunk: readonly EntityRequest[]): Promise<EntityStatus[]> {
    const candidates = (namespace: Namespace) => chunk.filter((e) => e.register && e.namespace === namespace).map((e) => e.id);
    for (const namespace of ['t', 'm'] as const) {
      const ids = candidates(namespace);
      if (ids.length > 0) await this.redis.sAdd(this.keys.companyEntities(company, namespace), ids);
    }
    const replies = await CHECK_AND_REGISTER.runMany(
      this.redis,
      chunk.map((e) => ({ keys: [this.keys.entity(e.namespace, e.id)], args: [company, user, now, e.namespace, e.id, e.register ? '1' : '0'] })),
    );
    const statuses = replies as EntityStatus[];
    // Candidates another company owns leave the index again (readers ignore them meanwhile).
    for (const namespace of ['t', 'm'] as const) {
      const foreign = chunk.filter((e, i) => e.register && e.namespace === namespace && statuses[i] === 'foreign').map((e) => e.id);
      if (foreign.length > 0) await this.redis.sRem(this.keys.companyEntities(company, namespace), foreign);
    }
    return statuses;
  }
}
