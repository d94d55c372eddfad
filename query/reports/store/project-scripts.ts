/**
 * Project writes (reports.md §1.3) as Lua scripts: finding or creating a
 * reports project with all its ancestors is one atomic step, so concurrent
 * creates of one path make one project, and removing an empty `.reports`
 * project cannot race with a report moving into it.
 */
import { LuaScript } from '../../../shared/stores/lua-script.js';
import { MAX_PROJECT_DEPTH } from './project-path.js';

/**
 * KEYS (all in the company's hash slot): the company's project names, its
 * project version, then for each prefix of the path the project key of its
 * id (the existing project's, as read before the call, or the fresh id's).
 * ARGV: company, user, now, n, then 6 groups of n values: the full names of
 * the path's prefixes (root first, the target last), their basenames, '1'
 * where a name is shorter than 3 characters, the ids the keys were built
 * from, '1' where that id is an existing project's, and '1' where the name
 * is a public project's (read before the call: public projects live in
 * another slot, and only seeding writes them).
 * Replies {'ok', target id}, {'retry'} when a prefix's project changed
 * since it was read, or {'err', 'depth' | 'public' | 'short', name}.
 */
export const RESOLVE_PROJECT = new LuaScript(`
local CO, user, now, n = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local function arg(group, i) return ARGV[4 + group * n + i] end
local names, version = KEYS[1], KEYS[2]
local full = arg(0, n)
local found = redis.call('HGET', names, full)
if found then return {'ok', found} end
if arg(4, n) == '1' then return {'retry'} end
if n > ${MAX_PROJECT_DEPTH} then return {'err', 'depth'} end
local function isPublic(i) return CO ~= '' and arg(5, i) == '1' end
if isPublic(n) then return {'err', 'public_project', full} end
local ids = {}
for i = 1, n - 1 do
  ids[i] = redis.call('HGET', names, arg(0, i))
  -- (HGET answers false for a missing field)
  if (ids[i] and true or false) ~= (arg(4, i) == '1') or (ids[i] and ids[i] ~= arg(3, i)) then return {'retry'} end
  if not ids[i] then
    if isPublic(i) then return {'err', 'public_project', arg(0, i)} end
    if arg(2, i) == '1' then return {'err', 'short', arg(0, i)} end
  end
end
if arg(2, n) == '1' then return {'err', 'short', full} end

local path, parent = {}, nil
for i = 1, n do
  local id = ids[i]
  if not id then
    id = arg(3, i)
    local key = KEYS[2 + i]
    local target = i == n
    redis.call('HSET', key, 'id', id, 'name', arg(0, i), 'basename', arg(1, i), 'company', CO, 'user', user,
      'description', target and 'Reports project' or '', 'tags', '[]',
      'system_tags', target and '["hidden","reports"]' or '[]', 'created', now, 'last_update', now,
      'path', '[' .. table.concat(path, ',') .. ']')
    if parent then
      redis.call('HSET', key, 'parent', parent)
      redis.call('HSET', KEYS[1 + i], 'last_update', now)
    end
    redis.call('HSET', names, arg(0, i), id)
    ids[i] = id
  end
  path[#path + 1] = '"' .. id .. '"'
  parent = id
end
redis.call('INCR', version)
return {'ok', ids[n]}
`);

/**
 * KEYS: the project, its tasks set, the company's project names and project
 * version. ARGV: company, project id. Deletes the project when it is a
 * `.reports` project of that company that no task references; replies 1 then.
 */
export const REMOVE_IF_EMPTY = new LuaScript(`
local CO, ID = ARGV[1], ARGV[2]
local f = redis.call('HMGET', KEYS[1], 'basename', 'company', 'name')
if f[1] ~= '.reports' or f[2] ~= CO then return 0 end
if redis.call('SCARD', KEYS[2]) > 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
if f[3] and redis.call('HGET', KEYS[3], f[3]) == ID then redis.call('HDEL', KEYS[3], f[3]) end
redis.call('INCR', KEYS[4])
return 1
`);
