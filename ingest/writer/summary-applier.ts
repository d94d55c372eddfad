/**
 * Applies a request's entity summary (events.md §1.11) to the entity record,
 * its last_metrics hash and its metric listing, in one script: atomic, and
 * idempotent because the record keeps the arrival seq of the last summary
 * applied (`summary_seq`) and a summary at or below it is skipped. The
 * arrival seq (stream seq × 65536 + record index) rather than the stream
 * seq, so that two summaries of one entity in one message both apply.
 *
 * Numbers: Redis' cjson prints 14 significant digits, which would corrupt
 * doubles. Values the summary brings are passed as JS' shortest round-trip
 * text and stored as given; numbers the script keeps from the stored JSON
 * are stored back as the text they were stored as; numbers it computes are
 * printed with the shortest of %.15g/%.16g/%.17g that reads back to the
 * same double (a mean rounded to two decimals: its %.2f text without
 * trailing zeros, the same number). Means are combined so that no finite values
 * overflow: (old mean × old count + sum) / count as long as that is
 * finite, else the weighted mean of the two means, which lies between them.
 */
import { LOG_REPORT_CHANGE_LUA, reportChangeLogKeys } from '../../shared/entities/report-change-log.js';
import { LAST_SCALAR_AT_FIELD, MAX_ITER_FIELD } from '../../shared/events/storage-layout.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import type { EntitySummary, ScalarStats } from '../../shared/events/wire-format.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { LuaScript } from '../../shared/stores/lua-script.js';
import { IMAGE_INDEX_LUA, imageIndexPayload } from './image-index-script.js';

const FIELDS_PER_SCALAR = 17;
/**
 * Scalars (and listing entries) per script call. A request touching
 * thousands of series would otherwise pass hundreds of thousands of
 * arguments in one call, beyond what the client can spread onto its stack.
 */
const CHUNK = 1000;

// KEYS: entity hash, last_metrics hash, listing set (each must be of that type or absent), then the
// company's report change log (version, changes, floor: report-change-log.ts), then the image index
// and its URLs (hashes: image-index-script.ts).
// ARGV: seq, chunk index, at, user, last iteration or '', scalar count, listing count, greatest
// iteration ('' none, '?' not sent), entity id, the image index payload (imageIndexPayload; '[]' in
// chunks after the first), then per scalar FIELDS_PER_SCALAR values (see scalarArgs), then the
// listing members.
// A chunk is skipped when it (or a later summary) was applied before: (seq, chunk) only grows.
// A report's change is logged in the change log, so that the reports read cache re-reads it on its
// next read instead of scanning every report for summary_seq (docs/reports.md, "Read path").
const APPLY = new LuaScript(`
${LOG_REPORT_CHANGE_LUA}
${IMAGE_INDEX_LUA}
local seq, chunk = tonumber(ARGV[1]), tonumber(ARGV[2])
-- Refuse before writing anything: a script stopped halfway keeps what it wrote, and a chunk
-- dead-lettered with part of it applied would count that part twice when replayed.
local expected = {{1, 'hash', 'entity record'}, {2, 'hash', 'last_metrics'}, {3, 'set', 'metric listing'},
  {7, 'hash', 'image index'}, {8, 'hash', 'image index URLs'}}
for _, e in ipairs(expected) do
  local t = redis.call('TYPE', KEYS[e[1]]).ok
  if t ~= 'none' and t ~= e[2] then
    return redis.error_reply('WRONGTYPE the ' .. e[3] .. ' key holds a ' .. t)
  end
end
local state = redis.call('HMGET', KEYS[1], 'summary_seq', 'summary_chunk', 'type')
local applied, appliedChunk = tonumber(state[1] or '') or -1, tonumber(state[2] or '') or -1
if applied > seq or (applied == seq and appliedChunk >= chunk) then return 0 end
table.remove(ARGV, 2)
-- Logged first, so that an error in it (say a key of the wrong type) leaves the record untouched.
if state[3] == 'report' then logReportChange(KEYS[4], KEYS[5], KEYS[6], ARGV[8]) end

local function num(v)
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format('%d', v) end
  for _, f in ipairs({'%.15g', '%.16g'}) do
    local s = string.format(f, v)
    if tonumber(s) == v then return s end
  end
  return string.format('%.17g', v)
end
-- A number read back from stored JSON, or nil when absent or not finite (cjson reads inf and nan).
local function finite(v)
  if type(v) == 'number' and v == v and v > -math.huge and v < math.huge then return v end
  return nil
end
local function iterText(v) v = finite(v) if v then return num(v) end return '' end
-- A kept number is stored back as the text it was stored as (num's or JS' shortest round trip), not
-- printed again: printing and reading back (up to three formats, two reads) was a quarter of this
-- script's time. Quotes inside the JSON strings before it are escaped, so the member's name matches
-- only the member. Printed from the decoded number when the text is not a plain number.
local function storedText(json, name, v)
  local text = string.match(json, '"' .. name .. '":(%-?%d[%d%.eE+%-]*)[,}]')
  if text then return text end
  return num(v)
end
-- A mean rounded to two decimals, as num(tonumber(string.format('%.2f', v))) prints it, but without
-- printing it twice: below 1e15 the two-decimal text without its trailing zeros is that number's
-- shortest form.
local function twoDecimals(v)
  if not (math.abs(v) < 1e15) then return num(tonumber(string.format('%.2f', v))) end
  local text = string.gsub(string.gsub(string.format('%.2f', v), '0+$', ''), '%.$', '')
  if text == '-0' then return '0' end
  return text
end
-- The mean of n1 values of mean m1 and n2 of mean m2, weighted: it lies between m1 and m2, so
-- no finite means overflow (the sum of the values may).
local function weighted(m1, n1, m2, n2)
  local t = n1 + n2
  local m = m1 * (n1 / t) + m2 * (n2 / t)
  local lo, hi = math.min(m1, m2), math.max(m1, m2)
  if not (m >= lo) then m = lo elseif not (m <= hi) then m = hi end
  return m
end

local at = tonumber(ARGV[2])
for _, pair in ipairs({{'last_update'}, {'last_change', 'last_changed_by'}}) do
  local old = tonumber(redis.call('HGET', KEYS[1], pair[1]) or '') or -1
  if at >= old then
    redis.call('HSET', KEYS[1], pair[1], ARGV[2])
    if pair[2] then redis.call('HSET', KEYS[1], pair[2], ARGV[3]) end
  end
end
if ARGV[4] ~= '' then
  local old = tonumber(redis.call('HGET', KEYS[1], 'last_iteration') or '') or 0
  local new = math.max(old, tonumber(ARGV[4]), 0)
  if new ~= old or redis.call('HEXISTS', KEYS[1], 'last_iteration') == 0 then
    redis.call('HSET', KEYS[1], 'last_iteration', num(new))
  end
end

-- The greatest iteration of the entity's InfluxDB events is kept only while the writer has seen every
-- summary of the entity: from its first one (no listing yet) on, until one comes without it.
local kept = redis.call('HGET', KEYS[1], '${MAX_ITER_FIELD}')
if kept == false and redis.call('SCARD', KEYS[3]) == 0 then kept = '' end
if kept ~= false then
  local new = ARGV[7]
  if new == '?' then
    redis.call('HDEL', KEYS[1], '${MAX_ITER_FIELD}')
  elseif new ~= '' and (kept == '' or tonumber(new) > tonumber(kept)) then
    redis.call('HSET', KEYS[1], '${MAX_ITER_FIELD}', new)
  elseif kept == '' then
    redis.call('HSET', KEYS[1], '${MAX_ITER_FIELD}', '')
  end
end

local scalars, listed = tonumber(ARGV[5]), tonumber(ARGV[6])
if scalars > 0 then
  local old = tonumber(redis.call('HGET', KEYS[1], '${LAST_SCALAR_AT_FIELD}') or '') or -1
  if at > old then redis.call('HSET', KEYS[1], '${LAST_SCALAR_AT_FIELD}', ARGV[2]) end
end
local base = 10
-- The chunk's statistics are read with one HMGET and written with one HSET: a redis.call costs
-- more than the Lua around it. A field twice in a chunk (ingest sends each once) reads what its
-- first entry wrote, as with one HGET and HSET each.
local olds, written, updates = {}, {}, {}
if scalars > 0 then
  local fields = {}
  for s = 0, scalars - 1 do fields[s + 1] = ARGV[base + s * ${FIELDS_PER_SCALAR}] end
  olds = redis.call('HMGET', KEYS[2], unpack(fields))
end
for s = 0, scalars - 1 do
  local a = base + s * ${FIELDS_PER_SCALAR}
  local field = ARGV[a]
  local oldText = written[field]
  if oldText == nil then oldText = olds[s + 1] end
  -- Stored statistics that do not read back (written by an older version) are replaced, not fatal.
  local old = nil
  if oldText then
    local ok, decoded = pcall(cjson.decode, oldText)
    if ok and type(decoded) == 'table' then old = decoded end
  end
  -- each entry: JSON text, or '' for an absent member
  local value, iter, ts = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local minV, minI, maxV, maxI = ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9]
  local firstV, firstI = ARGV[a + 10], ARGV[a + 11]
  -- sum: '' when it overflowed at ingest; mean: always there
  local count, sum, mean = tonumber(ARGV[a + 12]), tonumber(ARGV[a + 13]), tonumber(ARGV[a + 16])
  local label = nil
  if ARGV[a + 14] == '1' then label = ARGV[a + 15] end
  if old then
    local oldMin, oldMax, oldFirst = finite(old.min_value), finite(old.max_value), finite(old.first_value)
    if oldMin and not (tonumber(minV) < oldMin) then
      minV = storedText(oldText, 'min_value', oldMin)
      minI = iterText(old.min_value_iteration)
    end
    if oldMax and not (tonumber(maxV) > oldMax) then
      maxV = storedText(oldText, 'max_value', oldMax)
      maxI = iterText(old.max_value_iteration)
    end
    if oldFirst then
      firstV = storedText(oldText, 'first_value', oldFirst)
      firstI = iterText(old.first_value_iteration)
    end
    local oldCount = finite(old.count) or 0
    local oldMean = finite(old.mean_value) or 0
    local total = oldCount + count
    local combined = nil
    if sum then combined = finite((oldMean * oldCount + sum) / total) end
    mean = combined or weighted(oldMean, oldCount, mean, count)
    count = total
    if label == nil and type(old.x_axis_label) == 'string' then label = cjson.encode(old.x_axis_label) end
  end
  local meanText = '0'
  if count > 0 then meanText = twoDecimals(mean) end
  local parts = {'{"metric":', ARGV[a + 1], ',"variant":', ARGV[a + 2], ',"value":', value}
  local function add(name, v) if v ~= '' then parts[#parts + 1] = ',"' .. name .. '":' .. v end end
  add('iter', iter)
  add('timestamp', ts)
  add('min_value', minV)
  add('min_value_iteration', minI)
  add('max_value', maxV)
  add('max_value_iteration', maxI)
  add('first_value', firstV)
  add('first_value_iteration', firstI)
  add('count', num(count))
  add('mean_value', meanText)
  if label then add('x_axis_label', label) end
  parts[#parts + 1] = '}'
  local text = table.concat(parts)
  written[field] = text
  updates[#updates + 1] = field
  updates[#updates + 1] = text
end
if scalars > 0 then redis.call('HSET', KEYS[2], unpack(updates)) end
applyImageUses(KEYS[7], KEYS[8], redis.call('SCARD', KEYS[3]) == 0, ARGV[9])
local listing = base + scalars * ${FIELDS_PER_SCALAR}
if listed > 0 then redis.call('SADD', KEYS[3], unpack(ARGV, listing, listing + listed - 1)) end
redis.call('HSET', KEYS[1], 'summary_seq', ARGV[1], 'summary_chunk', chunk)
return 1`);

export class SummaryApplier {
  private readonly keys;
  private readonly changeLog;

  constructor(
    private readonly client: RedisClient,
    redisPrefix: string,
  ) {
    this.keys = redisKeys(redisPrefix);
    this.changeLog = reportChangeLogKeys(redisPrefix);
  }

  /** Answers true when applied, false when it had been applied before. */
  async apply(summary: EntitySummary, seq: number): Promise<boolean> {
    let applied = false;
    for (let chunk = 0; chunk < chunkCount(summary); chunk++)
      applied = (await this.applyChunk(summary, seq, chunk)) || applied;
    return applied;
  }

  /** One script call: chunk `chunk` of the summary's scalars and listing (the first also sets the record fields). */
  async applyChunk(summary: EntitySummary, seq: number, chunk: number): Promise<boolean> {
    const { c, n, e } = summary;
    const { scalars, listing } = chunkOf(summary, chunk);
    const args: string[] = [
      String(seq),
      String(chunk),
      String(summary.at),
      summary.u ?? '',
      summary.lastIter === undefined || summary.lastIter === null ? '' : String(summary.lastIter),
      String(scalars.length),
      String(listing.length),
      summary.maxIter === undefined ? '?' : summary.maxIter === null ? '' : String(summary.maxIter),
      e,
      chunk === 0 ? imageIndexPayload(summary.images) : '[]',
    ];
    for (const stats of scalars) for (const arg of scalarArgs(stats)) args.push(arg);
    for (const entry of listing) args.push(entry.join('\u001f'));
    const log = this.changeLog;
    const keys = [
      this.keys.entity(c, n, e),
      this.keys.lastMetrics(c, n, e),
      this.keys.metricListing(c, n, e),
      log.reportVersion(c),
      log.reportChanges(c),
      log.reportChangesFloor(c),
      this.keys.imageIndex(c, n, e),
      this.keys.imageIndexUrls(c, n, e),
    ];
    const reply = await APPLY.run(this.client, keys, args);
    return Number(reply) === 1;
  }
}

export function chunkCount(summary: EntitySummary): number {
  return Math.max(1, Math.ceil(summary.scalars.length / CHUNK), Math.ceil(summary.listing.length / CHUNK));
}

function chunkOf(summary: EntitySummary, chunk: number): Pick<EntitySummary, 'scalars' | 'listing'> {
  return {
    scalars: summary.scalars.slice(chunk * CHUNK, (chunk + 1) * CHUNK),
    listing: summary.listing.slice(chunk * CHUNK, (chunk + 1) * CHUNK),
  };
}

/** The summary restricted to the given chunks: what is dead-lettered when only those were refused. */
export function summaryPart(summary: EntitySummary, chunks: readonly number[]): EntitySummary {
  const parts = chunks.map((chunk) => chunkOf(summary, chunk));
  const images = summary.images === undefined ? undefined : chunks.includes(0) ? summary.images : [];
  return {
    ...summary,
    scalars: parts.flatMap((p) => p.scalars),
    listing: parts.flatMap((p) => p.listing),
    ...(images === undefined ? {} : { images }),
  };
}

const text = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v));

/**
 * Whether the request's sum overflowed a double at ingest: ingests send it
 * clamped to ±Number.MAX_VALUE (JSON cannot carry Infinity; older ones sent
 * null). The script then combines means instead of sums.
 */
function sumOverflowed(s: ScalarStats): boolean {
  return typeof s.sum !== 'number' || !Number.isFinite(s.sum) || Math.abs(s.sum) === Number.MAX_VALUE;
}

/**
 * The request's mean: the one ingest computed without overflow when it sent
 * one, else sum / count; a summary of an old ingest whose sum overflowed gets
 * the midpoint of min and max, the best bound it still has.
 */
export function requestMean(s: ScalarStats): number {
  if (typeof s.mean === 'number' && Number.isFinite(s.mean)) return s.mean;
  if (!sumOverflowed(s)) return s.sum / s.count;
  return s.min / 2 + s.max / 2;
}

function scalarArgs(s: ScalarStats): string[] {
  const hasLabel = typeof s.x_axis_label === 'string';
  return [
    JSON.stringify([s.metric, s.variant]),
    JSON.stringify(s.metric),
    JSON.stringify(s.variant),
    String(s.value),
    text(s.iter),
    String(s.timestamp),
    String(s.min),
    text(s.minIter),
    String(s.max),
    text(s.maxIter),
    String(s.first),
    text(s.firstIter),
    String(s.count),
    sumOverflowed(s) ? '' : String(s.sum),
    hasLabel ? '1' : '0',
    hasLabel ? JSON.stringify(s.x_axis_label) : '',
    String(requestMean(s)),
  ];
}
