/**
 * The report writes, each one Lua script so that the §2.1 checks, the name
 * uniqueness of §2.2 and every index change are atomic with the record
 * change (two concurrent creates or renames to one name: exactly one wins).
 * Every script bumps the company's report version and records the id in
 * the change log that the read cache follows (report-snapshots.ts).
 *
 * Replies: `{'ok', ...}` or `{'err', <word>, <detail>}`; report-store.ts
 * turns the words into the contract's errors.
 */
import { LOG_REPORT_CHANGE_LUA } from '../../../shared/entities/report-change-log.js';
import { LuaScript } from '../../../shared/stores/lua-script.js';

/**
 * The keys every report script gets, in this order (report-store.ts builds
 * them; nothing is assembled inside a script). The project of the record is
 * read before the call and passed as ARGV[3]; a script that finds another
 * project on the record answers 'retry', and the store calls again.
 */
export const REPORT_SCRIPT_KEYS = [
  'record',
  'reports',
  'tasks',
  'reportNames',
  'reportTags',
  'reportVersion',
  'reportChanges',
  'reportChangesFloor',
  'projectVersion',
  'currentProject',
  'currentProjectTasks',
  'targetProject',
  'targetProjectTasks',
  'lastMetrics',
  'metricListing',
] as const;

// ARGV[1] caller company, ARGV[2] report id, ARGV[3] the record's project as read before the call.
const PREAMBLE = `
local CO, ID, EXPECTED = ARGV[1], ARGV[2], ARGV[3]
local KEY, REPORTS, TASKS, NAMES, TAGS, RV, RCHG, RFLOOR, PV = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local PROJECT, PROJECT_TASKS, TARGET, TARGET_TASKS = KEYS[10], KEYS[11], KEYS[12], KEYS[13]

-- reports.md §2.1; status is the real one while a delete holds the lock
local function find()
  local f = redis.call('HMGET', KEY, 'company', 'type', 'status', 'project', 'name', 'tags', 'system_tags', 'deleting_status')
  if not f[1] or (f[1] ~= CO and f[1] ~= '') then return nil, 'invalid' end
  if f[1] == '' then return nil, 'public' end
  if f[2] ~= 'report' then return nil, 'not_report' end
  if (f[4] or '') ~= EXPECTED then return nil, 'retry' end
  return {status = f[8] or f[3], project = f[4], name = f[5], tags = f[6], system_tags = f[7], deleting = f[8] and true or false}
end

${LOG_REPORT_CHANGE_LUA}
local function touched() logReportChange(RV, RCHG, RFLOOR, ID) end

-- Both lists are decoded before any write: a list cjson cannot read fails the call with nothing changed.
-- Stored tags it cannot read (a lone surrogate's escape, written before 2026-11-30 by a create that then
-- failed at this decoding) were never counted in the index: they count as none, so that such a record
-- can still be updated and deleted.
local function retag(old, new)
  local key = TAGS
  local readable, before = pcall(cjson.decode, old or '[]')
  if not readable then before = {} end
  local after = new and cjson.decode(new) or {}
  for _, t in ipairs(before) do
    if redis.call('HINCRBY', key, t, -1) <= 0 then redis.call('HDEL', key, t) end
  end
  for _, t in ipairs(after) do redis.call('HINCRBY', key, t, 1) end
end

local function encodeList(list)
  if #list == 0 then return '[]' end
  return cjson.encode(list)
end
`;

const script = (body: string) => new LuaScript(`${PREAMBLE}\n${body}`);

// ARGV[4] name, [5] tags JSON, then the record's field/value pairs; the target project is KEYS[12].
export const CREATE = script(`
local name, tags = ARGV[4], ARGV[5]
if redis.call('HEXISTS', NAMES, name) == 1 then return {'err', 'exists'} end
if redis.call('EXISTS', TARGET) == 0 then return {'err', 'no_project'} end
local fields = {}
for i = 6, #ARGV do fields[#fields + 1] = ARGV[i] end
-- First of the writes: it decodes the tags, the one step that can fail.
retag(nil, tags)
redis.call('HSET', KEY, unpack(fields))
redis.call('SADD', REPORTS, ID)
redis.call('SADD', TASKS, ID)
redis.call('HSET', NAMES, name, ID)
redis.call('SADD', TARGET_TASKS, ID)
touched()
return {'ok'}
`);

// ARGV[4] now, [5] user, then (present flag, value) for name, tags, comment, report, report_assets.
export const UPDATE = script(`
local r, e = find()
if not r then return {'err', e} end
local now, user = ARGV[4], ARGV[5]
local has = function(i) return ARGV[i] == '1' end
local content = has(12) or has(14)
if content and r.status ~= 'created' then return {'err', 'status', r.status} end
if has(6) then
  local holder = redis.call('HGET', NAMES, ARGV[7])
  if holder and holder ~= ID then return {'err', 'exists'} end
end
-- The first write: it decodes the tags, the one step that can fail.
if has(8) then
  retag(r.tags, ARGV[9])
  redis.call('HSET', KEY, 'tags', ARGV[9])
end
if has(6) then
  if r.name and redis.call('HGET', NAMES, r.name) == ID then redis.call('HDEL', NAMES, r.name) end
  redis.call('HSET', NAMES, ARGV[7], ID)
  redis.call('HSET', KEY, 'name', ARGV[7])
end
if has(10) then redis.call('HSET', KEY, 'comment', ARGV[11]) end
if has(12) then redis.call('HSET', KEY, 'report', ARGV[13]) end
if has(14) then redis.call('HSET', KEY, 'report_assets', ARGV[15]) end
redis.call('HSET', KEY, 'last_change', now, 'last_changed_by', user)
if content then redis.call('HSET', KEY, 'last_update', now) end
touched()
return {'ok'}
`);

// ARGV[4] now, [5] user, [6] message.
export const PUBLISH = script(`
local r, e = find()
if not r then return {'err', e} end
local now = ARGV[4]
redis.call('HSET', KEY, 'status', 'published', 'status_reason', '', 'status_message', ARGV[6], 'status_changed', now,
  'published', now, 'last_update', now, 'last_change', now, 'last_changed_by', ARGV[5])
if r.deleting then redis.call('HSET', KEY, 'deleting_status', 'published') end
if r.project and redis.call('EXISTS', PROJECT) == 1 then
  redis.call('HSET', PROJECT, 'last_update', now)
  redis.call('INCR', PV)
end
touched()
return {'ok'}
`);

// ARGV[4] now, [5] user, [6] message, [7] 'add' (archive) or 'remove' (unarchive).
export const ARCHIVE = script(`
local r, e = find()
if not r then return {'err', e} end
local add = ARGV[7] == 'add'
local out, found = {}, false
for _, t in ipairs(r.system_tags and cjson.decode(r.system_tags) or {}) do
  if t == 'archived' then found = true end
  if t ~= 'archived' or add then out[#out + 1] = t end
end
if add and not found then out[#out + 1] = 'archived' end
redis.call('HSET', KEY, 'system_tags', encodeList(out), 'status_message', ARGV[6], 'status_reason', '',
  'last_change', ARGV[4], 'last_changed_by', ARGV[5])
touched()
return {'ok'}
`);

// ARGV[4] target project id (its keys are KEYS[12], KEYS[13]), [5] now, [6] user. Replies the previous project id.
export const MOVE = script(`
local r, e = find()
if not r then return {'err', e} end
local project = ARGV[4]
if redis.call('EXISTS', TARGET) == 0 then return {'err', 'no_project'} end
local old = r.project or ''
if old ~= project then
  if old ~= '' then redis.call('SREM', PROJECT_TASKS, ID) end
  redis.call('SADD', TARGET_TASKS, ID)
  redis.call('HSET', KEY, 'project', project)
end
redis.call('HSET', KEY, 'last_change', ARGV[5], 'last_changed_by', ARGV[6])
touched()
return {'ok', old}
`);

/**
 * First step of a delete: the §3.7 checks, then a lock for event writes
 * (ingest refuses events to a task whose status is publishing) while the
 * events are deleted; the real status stays in deleting_status.
 * ARGV[4] '1' when forced.
 */
export const LOCK_FOR_DELETE = script(`
local r, e = find()
if not r then return {'err', e} end
local archived = false
for _, t in ipairs(r.system_tags and cjson.decode(r.system_tags) or {}) do
  if t == 'archived' then archived = true end
end
if r.status ~= 'created' and not archived and ARGV[4] ~= '1' then return {'err', 'cannot_delete', r.status} end
if not r.deleting then redis.call('HSET', KEY, 'deleting_status', r.status, 'status', 'publishing') end
return {'ok'}
`);

/** Undoes LOCK_FOR_DELETE when the events could not be deleted. */
export const UNLOCK = script(`
local s = redis.call('HGET', KEY, 'deleting_status')
if s then
  redis.call('HSET', KEY, 'status', s)
  redis.call('HDEL', KEY, 'deleting_status')
end
return {'ok'}
`);

/** Last step of a delete: the record, its last metrics and listing, and every index entry. Replies the project id. */
export const DELETE = script(`
local r, e = find()
if not r then return {'err', e} end
redis.call('DEL', KEY, KEYS[14], KEYS[15])
redis.call('SREM', REPORTS, ID)
redis.call('SREM', TASKS, ID)
if r.name and redis.call('HGET', NAMES, r.name) == ID then
  redis.call('HDEL', NAMES, r.name)
end
retag(r.tags, nil)
if r.project then redis.call('SREM', PROJECT_TASKS, ID) end
touched()
return {'ok', r.project or ''}
`);
