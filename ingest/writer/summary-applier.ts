/**
 * Applies entity summaries (events.md §1.11) to the entity record, its
 * last_metrics hash and its metric listing, one script call per
 * SummaryCall (summary-calls.ts: one summary's chunk, or several summaries
 * of one entity merged): atomic, and idempotent because the record keeps
 * the arrival seq of the last summary applied (`summary_seq`) and a
 * summary at or below it is skipped. The arrival seq (stream seq × 65536 +
 * record index) rather than the stream seq, so that two summaries of one
 * entity in one message both apply. A merged call of which only some
 * summaries were applied before (a batch stored again after a crash)
 * applies nothing and says so: its summaries are then applied one by one.
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
import { LAST_SCALAR_AT_FIELD, LISTING_VERSION_FIELD, MAX_ITER_FIELD } from '../../shared/events/storage-layout.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import type { EntitySummary } from '../../shared/events/wire-format.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { LuaScript } from '../../shared/stores/lua-script.js';
import { IMAGE_INDEX_LUA, imageIndexPayload } from './image-index-script.js';
import { chunkCount, chunkOf, summaryCall, type SeriesUpdate, type SummaryCall } from './summary-calls.js';
import type { BatchSummary } from './write-batch.js';

/** Arguments of a series before its extra mean steps (see seriesArgs). */
const FIELDS_PER_SERIES = 18;
const HEAD = 12;

// KEYS: entity hash, last_metrics hash, listing set (each must be of that type or absent), then the
// company's report change log (version, changes, floor: report-change-log.ts), then the image index
// and its URLs (hashes: image-index-script.ts).
// ARGV: seq (the call's last summary's), chunk, first summary's seq, at, user, last iteration or '',
// receive time of the last summary with scalars or '', series count, listing count, greatest
// iteration ('' none, '?' not sent), entity id, summary count M; then per summary its image payload
// (imageIndexPayload; '[]' in chunks after the first); then per series FIELDS_PER_SERIES values and its
// extra mean steps (seriesArgs); then the listing members.
// A call is skipped when it (or a later summary) was applied before: (seq, chunk) only grows; a call of
// several summaries of which the first was applied before answers -1 and writes nothing.
// A report's change is logged in the change log, so that the reports read cache re-reads it on its
// next read instead of scanning every report for summary_seq (docs/reports.md, "Read path").
const APPLY = new LuaScript(`
${LOG_REPORT_CHANGE_LUA}
${IMAGE_INDEX_LUA}
local seq, chunk, firstSeq = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
-- Refuse before writing anything: a script stopped halfway keeps what it wrote, and a chunk
-- dead-lettered with part of it applied would count that part twice when replayed.
local expected = {{1, 'hash', 'entity record'}, {2, 'hash', 'last_metrics'}, {3, 'set', 'metric listing'},
  {7, 'hash', 'image index'}, {8, 'hash', 'image index URLs'}, {9, 'string', 'listing version counter'}}
for _, e in ipairs(expected) do
  local t = redis.call('TYPE', KEYS[e[1]]).ok
  if t ~= 'none' and t ~= e[2] then
    return redis.error_reply('WRONGTYPE the ' .. e[3] .. ' key holds a ' .. t)
  end
end
-- The record's fields this script reads, at once: a redis.call costs more than the Lua around it.
local state = redis.call('HMGET', KEYS[1], 'summary_seq', 'summary_chunk', 'type', 'last_update', 'last_change',
  'last_iteration', '${MAX_ITER_FIELD}', '${LAST_SCALAR_AT_FIELD}')
local applied, appliedChunk = tonumber(state[1] or '') or -1, tonumber(state[2] or '') or -1
if applied > seq or (applied == seq and appliedChunk >= chunk) then return 0 end
if firstSeq < seq and applied >= firstSeq then return -1 end
-- Logged first, so that an error in it (say a key of the wrong type) leaves the record untouched.
if state[3] == 'report' then logReportChange(KEYS[4], KEYS[5], KEYS[6], ARGV[11]) end
local listingWasEmpty = redis.call('SCARD', KEYS[3]) == 0

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
-- One request's (count, sum or '', mean) added to a series' count and mean, as §1.11 rounds it.
local function combine(oldCount, oldMean, count, sumText, mean)
  local total = oldCount + count
  local sum = tonumber(sumText)
  local combined = nil
  if sum then combined = finite((oldMean * oldCount + sum) / total) end
  return total, combined or weighted(oldMean, oldCount, mean, count)
end

local record = {}
local at = tonumber(ARGV[4])
if at >= (tonumber(state[4] or '') or -1) then
  record[#record + 1] = 'last_update'
  record[#record + 1] = ARGV[4]
end
if at >= (tonumber(state[5] or '') or -1) then
  record[#record + 1] = 'last_change'
  record[#record + 1] = ARGV[4]
  record[#record + 1] = 'last_changed_by'
  record[#record + 1] = ARGV[5]
end
if ARGV[6] ~= '' then
  local old = tonumber(state[6] or '') or 0
  local new = math.max(old, tonumber(ARGV[6]), 0)
  if new ~= old or state[6] == false then
    record[#record + 1] = 'last_iteration'
    record[#record + 1] = num(new)
  end
end

-- The greatest iteration of the entity's InfluxDB events is kept only while the writer has seen every
-- summary of the entity: from its first one (no listing yet) on, until one comes without it.
local kept = state[7]
if kept == false and listingWasEmpty then kept = '' end
if kept ~= false then
  local new = ARGV[10]
  if new == '?' then
    redis.call('HDEL', KEYS[1], '${MAX_ITER_FIELD}')
  elseif (new ~= '' and (kept == '' or tonumber(new) > tonumber(kept))) or kept == '' then
    record[#record + 1] = '${MAX_ITER_FIELD}'
    record[#record + 1] = new
  end
end

if ARGV[7] ~= '' and tonumber(ARGV[7]) > (tonumber(state[8] or '') or -1) then
  record[#record + 1] = '${LAST_SCALAR_AT_FIELD}'
  record[#record + 1] = ARGV[7]
end

local members, seriesCount, listed = tonumber(ARGV[12]), tonumber(ARGV[8]), tonumber(ARGV[9])
local base = ${HEAD} + members + 1
-- Where each series' arguments start: a series has one extra mean step per later summary reporting it.
local starts, fields = {}, {}
local pos = base
for s = 1, seriesCount do
  starts[s] = pos
  fields[s] = ARGV[pos]
  pos = pos + ${FIELDS_PER_SERIES} + 3 * tonumber(ARGV[pos + ${FIELDS_PER_SERIES - 1}])
end
local listing = pos
-- The call's statistics are read with one HMGET and written with one HSET (each series once per call).
local olds, updates = {}, {}
if seriesCount > 0 then olds = redis.call('HMGET', KEYS[2], unpack(fields)) end
for s = 1, seriesCount do
  local a = starts[s]
  local oldText = olds[s]
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
  -- the first request's step: count, sum ('' when it overflowed at ingest) and mean
  local count, mean = tonumber(ARGV[a + 12]), tonumber(ARGV[a + 16])
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
    count, mean = combine(finite(old.count) or 0, finite(old.mean_value) or 0, count, ARGV[a + 13], mean)
    if label == nil and type(old.x_axis_label) == 'string' then label = cjson.encode(old.x_axis_label) end
  end
  local meanText = twoDecimals(mean)
  -- Each later request's step starts from the mean as the one before it stored it, rounded.
  for k = 1, tonumber(ARGV[a + ${FIELDS_PER_SERIES - 1}]) do
    local p = a + ${FIELDS_PER_SERIES} + 3 * (k - 1)
    count, mean = combine(count, tonumber(meanText), tonumber(ARGV[p]), ARGV[p + 1], tonumber(ARGV[p + 2]))
    meanText = twoDecimals(mean)
  end
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
  updates[#updates + 1] = ARGV[a]
  updates[#updates + 1] = table.concat(parts)
end
if seriesCount > 0 then redis.call('HSET', KEYS[2], unpack(updates)) end
-- Each summary's images as its own call would apply them. Whether the listing was empty only matters to
-- the first (it decides the index's marker); after the first, an empty payload changes nothing.
for m = 1, members do
  local payload = ARGV[${HEAD} + m]
  if m == 1 or payload ~= '[]' then applyImageUses(KEYS[7], KEYS[8], listingWasEmpty, payload) end
end
-- A new member gives the listing a new version: readers holding the listing of an older one read it again.
if listed > 0 and redis.call('SADD', KEYS[3], unpack(ARGV, listing, listing + listed - 1)) > 0 then
  record[#record + 1] = '${LISTING_VERSION_FIELD}'
  record[#record + 1] = redis.call('INCR', KEYS[9])
end
record[#record + 1] = 'summary_seq'
record[#record + 1] = ARGV[1]
record[#record + 1] = 'summary_chunk'
record[#record + 1] = ARGV[2]
redis.call('HSET', KEYS[1], unpack(record))
return 1`);

/** What a call did: applied, skipped (applied before), or nothing because only some of its summaries were applied before. */
export type CallOutcome = 'applied' | 'skipped' | 'partly applied before';

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

  /** Applies one summary, chunk by chunk; answers true when applied, false when it had been applied before. */
  async apply(summary: EntitySummary, seq: number): Promise<boolean> {
    let applied = false;
    for (let chunk = 0; chunk < chunkCount(summary); chunk++)
      applied = (await this.applyChunk(summary, seq, chunk)) || applied;
    return applied;
  }

  /** One script call: chunk `chunk` of the summary's scalars and listing (every chunk also sets the record fields). */
  async applyChunk(summary: EntitySummary, seq: number, chunk: number): Promise<boolean> {
    return (await this.run(summaryCall([{ summary, seq, owner: 0, index: 0 }], chunk, imagePayload))) === 'applied';
  }

  /** One script call for several single-chunk summaries of one entity, in stream order (summaryGroupWaves). */
  applyMerged(members: readonly BatchSummary[]): Promise<CallOutcome> {
    return this.run(summaryCall(members, 0, imagePayload));
  }

  private async run(call: SummaryCall): Promise<CallOutcome> {
    const { c, n, e } = call;
    const args: string[] = [
      String(call.seq),
      String(call.chunk),
      String(call.firstSeq),
      String(call.at),
      call.user,
      call.lastIter === undefined ? '' : String(call.lastIter),
      call.scalarAt === undefined ? '' : String(call.scalarAt),
      String(call.series.length),
      String(call.listing.length),
      call.maxIter === undefined ? '?' : call.maxIter === null ? '' : String(call.maxIter),
      e,
      String(call.images.length),
    ];
    for (const payload of call.images) args.push(payload);
    for (const series of call.series) seriesArgs(series, args);
    for (const entry of call.listing) args.push(entry);
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
      this.keys.listingVersions(c),
    ];
    const reply = Number(await APPLY.run(this.client, keys, args));
    return reply === 1 ? 'applied' : reply === 0 ? 'skipped' : 'partly applied before';
  }
}

const imagePayload = (summary: EntitySummary) => imageIndexPayload(summary.images);

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

/** A series' FIELDS_PER_SERIES arguments (its first mean step among them), then 3 per later step. */
function seriesArgs(s: SeriesUpdate, args: string[]): void {
  const [step, ...later] = s.steps;
  const hasLabel = s.label !== undefined;
  args.push(
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
    String(step!.count),
    step!.sum,
    hasLabel ? '1' : '0',
    hasLabel ? JSON.stringify(s.label) : '',
    String(step!.mean),
    String(later.length),
  );
  for (const { count, sum, mean } of later) args.push(String(count), sum, String(mean));
}
