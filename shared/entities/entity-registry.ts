/**
 * Task and model ids are global: an id is registered in at most one company
 * (events.md §1.10). Ingest checks every entity a request names, and
 * registers the new ones, in one atomic Redis script per request, so two
 * companies racing for a new id get exactly one winner; the same call
 * reports whether each entity is locked (events.md §1.9).
 *
 * Records are Redis hashes (`keys.entity(namespace, id)`); each company has
 * an index set of its task and model ids, for the reports searches.
 */
import type { RedisClient } from '../stores/redis-store.js';

export type EntityStatus = 'ok' | 'new' | 'locked' | 'foreign' | 'unknown';

export interface EntityRequest {
  namespace: 't' | 'm';
  id: string;
  /** register when unknown (the entity has at least one event passing every other check) */
  register: boolean;
}

/** Key of a company's index set of task (t) or model (m) ids. */
export const companyIndexKey = (prefix: string, company: string, namespace: 't' | 'm') =>
  `${prefix}:co:${company}:${namespace === 't' ? 'tasks' : 'models'}`;

// ARGV: prefix, company, user, now (ms), then (namespace, id, register) triples.
// Implicit records as reports.md §6.1 / §6.2 list them.
const SCRIPT = `
local prefix, company, user, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local out = {}
for i = 5, #ARGV, 3 do
  local ns, id, reg = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local key = prefix .. (ns == 't' and ':task:' or ':model:') .. id
  local fields = redis.call('HMGET', key, 'company', 'status', 'ready')
  local owner = fields[1]
  if not owner then
    if reg == '1' then
      if ns == 't' then
        redis.call('HSET', key, 'id', id, 'company', company, 'user', user, 'name', id, 'type', 'training',
          'status', 'in_progress', 'created', now, 'started', now, 'last_update', now, 'last_change', now,
          'last_changed_by', user, 'last_iteration', '0', 'tags', '[]', 'system_tags', '[]')
        redis.call('SADD', prefix .. ':co:' .. company .. ':tasks', id)
      else
        redis.call('HSET', key, 'id', id, 'company', company, 'user', user, 'name', id, 'created', now,
          'last_update', now, 'last_change', now, 'last_changed_by', user, 'last_iteration', '0', 'uri', '',
          'ready', '0', 'tags', '[]', 'system_tags', '[]')
        redis.call('SADD', prefix .. ':co:' .. company .. ':models', id)
      end
      out[#out + 1] = 'new'
    else
      out[#out + 1] = 'unknown'
    end
  elseif owner ~= company then
    out[#out + 1] = 'foreign'
  elseif (ns == 't' and (fields[2] == 'published' or fields[2] == 'publishing')) or (ns == 'm' and fields[3] == '1') then
    out[#out + 1] = 'locked'
  else
    out[#out + 1] = 'ok'
  end
end
return out
`;

export class EntityRegistry {
  private sha: string | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  /** Status of each requested entity, registering the new ones that ask for it; order follows the input. */
  async checkAndRegister(company: string, user: string, now: number, entities: EntityRequest[]): Promise<EntityStatus[]> {
    if (entities.length === 0) return [];
    const args = [this.prefix, company, user, String(now)];
    for (const e of entities) args.push(e.namespace, e.id, e.register ? '1' : '0');
    return (await this.evaluate(args)) as EntityStatus[];
  }

  private async evaluate(args: string[]): Promise<unknown> {
    if (this.sha === undefined) this.sha = await this.redis.scriptLoad(SCRIPT);
    try {
      return await this.redis.evalSha(this.sha, { arguments: args });
    } catch (error) {
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
      this.sha = await this.redis.scriptLoad(SCRIPT);
      return this.redis.evalSha(this.sha, { arguments: args });
    }
  }
}
