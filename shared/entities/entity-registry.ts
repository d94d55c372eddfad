/**
 * Task and model ids are global: an id is registered in at most one company
 * (events.md §1.10). Ingest checks every entity a request names, and
 * registers the new ones, before it answers.
 *
 * Two steps, each atomic on one hash slot (Redis Cluster):
 * 1. CLAIM, per entity, on the id's owner key: the first company to claim an
 *    id owns it (two companies racing for a new id get exactly one winner).
 * 2. RECORDS, per chunk, in the company's slot: creates the implicit records
 *    of the claimed ids that have none yet, adds them to the company's index
 *    and reports which are locked (events.md §1.9).
 * A crash between the steps leaves an id owned without a record: the next
 * request naming it creates the record (its claim answers the same company),
 * and until then reads find no record, as before the first event.
 *
 * The scripts of a request go out in pipelines of CHUNK entities, so a
 * request naming many entities never builds one huge call.
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

// KEYS[1] the id's owner key. ARGV[1] company, ARGV[2] '1' to claim a free id. Replies the owner, nil when free.
const CLAIM = new LuaScript(`
local owner = redis.call('GET', KEYS[1])
if owner or ARGV[2] ~= '1' then return owner end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
`);

// KEYS: the company's task index, model index, then one record key per entity.
// ARGV: company, user, now (ms), then per entity: namespace, id, '1' to register.
// Implicit records as reports.md §6.1 / §6.2 list them.
const RECORDS = new LuaScript(`
local company, user, now = ARGV[1], ARGV[2], ARGV[3]
local out = {}
for i = 3, #KEYS do
  local a = 4 + (i - 3) * 3
  local ns, id, reg = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  local fields = redis.call('HMGET', KEYS[i], 'company', 'status', 'ready')
  if not fields[1] then
    if reg ~= '1' then
      out[#out + 1] = 'unknown'
    else
      if ns == 't' then
        redis.call('HSET', KEYS[i], 'id', id, 'company', company, 'user', user, 'name', id, 'type', 'training',
          'status', 'in_progress', 'created', now, 'started', now, 'last_update', now, 'last_change', now,
          'last_changed_by', user, 'last_iteration', '0', 'tags', '[]', 'system_tags', '[]')
        redis.call('SADD', KEYS[1], id)
      else
        redis.call('HSET', KEYS[i], 'id', id, 'company', company, 'user', user, 'name', id, 'created', now,
          'last_update', now, 'last_change', now, 'last_changed_by', user, 'last_iteration', '0', 'uri', '',
          'ready', '0', 'tags', '[]', 'system_tags', '[]')
        redis.call('SADD', KEYS[2], id)
      end
      out[#out + 1] = 'new'
    end
  elseif (ns == 't' and (fields[2] == 'published' or fields[2] == 'publishing')) or (ns == 'm' and fields[3] == '1') then
    out[#out + 1] = 'locked'
  else
    out[#out + 1] = 'ok'
  end
end
return out
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
  async checkAndRegister(
    company: string,
    user: string,
    now: number,
    entities: readonly EntityRequest[],
  ): Promise<EntityStatus[]> {
    const statuses: EntityStatus[] = [];
    for (let start = 0; start < entities.length; start += CHUNK) {
      statuses.push(...(await this.checkChunk(company, user, String(now), entities.slice(start, start + CHUNK))));
    }
    return statuses;
  }

  /** Makes `company` the owner of a new id (a report being created); false when another company owns it. */
  async claim(company: string, namespace: Namespace, id: string): Promise<boolean> {
    return (await CLAIM.run(this.redis, [this.keys.owner(namespace, id)], [company, '1'])) === company;
  }

  /** Frees an id whose record `company` deleted, so that nothing keeps it owned. */
  async release(company: string, namespace: Namespace, id: string): Promise<void> {
    const key = this.keys.owner(namespace, id);
    if ((await this.redis.get(key)) === company) await this.redis.del(key);
  }

  private async checkChunk(
    company: string,
    user: string,
    now: string,
    chunk: readonly EntityRequest[],
  ): Promise<EntityStatus[]> {
    const owners = (await CLAIM.runMany(
      this.redis,
      chunk.map((e) => ({ keys: [this.keys.owner(e.namespace, e.id)], args: [company, e.register ? '1' : '0'] })),
    )) as Array<string | null>;
    const statuses: EntityStatus[] = owners.map((owner) =>
      owner === null || owner === undefined ? 'unknown' : 'foreign',
    );
    const owned = chunk.flatMap((e, i) => (owners[i] === company ? [i] : []));
    if (owned.length === 0) return statuses;
    const keys = [this.keys.companyEntities(company, 't'), this.keys.companyEntities(company, 'm')];
    const args = [company, user, now];
    for (const i of owned) {
      const e = chunk[i]!;
      keys.push(this.keys.entity(company, e.namespace, e.id));
      args.push(e.namespace, e.id, e.register ? '1' : '0');
    }
    const replies = (await RECORDS.run(this.redis, keys, args)) as EntityStatus[];
    owned.forEach((i, n) => (statuses[i] = replies[n]!));
    return statuses;
  }
}
