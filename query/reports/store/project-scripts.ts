/**
 * Project writes (reports.md §1.3) as Lua scripts: finding or creating a
 * reports project with all its ancestors is one atomic step, so concurrent
 * creates of one path make one project, and removing an empty `.reports`
 * project cannot race with a report moving into it.
 */
import { LuaScript } from './lua-script.js';

/**
 * ARGV: prefix, company, user, now, n, then n groups of n values: the full
 * names of the path's prefixes (root first, the target last), their
 * basenames, '1' where a name is shorter than 3 characters, and fresh ids.
 * Replies {'ok', target id} or {'err', 'depth' | 'public' | 'short', name}.
 */
export const RESOLVE_PROJECT = new LuaScript(`
local P, CO, user, now, n = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local function arg(group, i) return ARGV[5 + group * n + i] end
local names = P .. ':co:' .. CO .. ':project_names'
local public = P .. ':co::project_names'
local full = arg(0, n)
local found = redis.call('HGET', names, full)
if found then return {'ok', found} end
if n > 10 then return {'err', 'depth'} end
local function isPublic(name) return CO ~= '' and redis.call('HEXISTS', public, name) == 1 end
if isPublic(full) then return {'err', 'public_project', full} end
local ids = {}
for i = 1, n - 1 do
  ids[i] = redis.call('HGET', names, arg(0, i))
  if not ids[i] then
    if isPublic(arg(0, i)) then return {'err', 'public_project', arg(0, i)} end
    if arg(2, i) == '1' then return {'err', 'short', arg(0, i)} end
  end
end
if arg(2, n) == '1' then return {'err', 'short', full} end

local path, parent = {}, nil
for i = 1, n do
  local id = ids[i]
  if not id then
    id = arg(3, i)
    local key = P .. ':project:' .. id
    local target = i == n
    redis.call('HSET', key, 'id', id, 'name', arg(0, i), 'basename', arg(1, i), 'company', CO, 'user', user,
      'description', target and 'Reports project' or '', 'tags', '[]',
      'system_tags', target and '["hidden","reports"]' or '[]', 'created', now, 'last_update', now,
      'path', '[' .. table.concat(path, ',') .. ']')
    if parent then
      redis.call('HSET', key, 'parent', parent)
      redis.call('HSET', P .. ':project:' .. parent, 'last_update', now)
    end
    redis.call('HSET', names, arg(0, i), id)
    ids[i] = id
  end
  path[#path + 1] = '"' .. id .. '"'
  parent = id
end
redis.call('INCR', P .. ':co:' .. CO .. ':pv')
return {'ok', ids[n]}
`);

/** ARGV: prefix, project id. Deletes the project when it is a `.reports` project no task references; replies 1 then. */
export const REMOVE_IF_EMPTY = new LuaScript(`
local P, ID = ARGV[1], ARGV[2]
local key = P .. ':project:' .. ID
local f = redis.call('HMGET', key, 'basename', 'company', 'name')
if f[1] ~= '.reports' then return 0 end
if redis.call('SCARD', key .. ':tasks') > 0 then return 0 end
redis.call('DEL', key, key .. ':tasks')
local names = P .. ':co:' .. f[2] .. ':project_names'
if f[3] and redis.call('HGET', names, f[3]) == ID then redis.call('HDEL', names, f[3]) end
redis.call('INCR', P .. ':co:' .. f[2] .. ':pv')
return 1
`);
