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
 * or computes are printed with the shortest of %.15g/%.16g/%.17g that reads
 * back to the same double.
 */
import { LAST_SCALAR_AT_FIELD } from '../../shared/events/storage-layout.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import type { EntitySummary, ScalarStats } from '../../shared/events/wire-format.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { LuaScript } from '../../shared/stores/lua-script.js';

const FIELDS_PER_SCALAR = 16;
/**
 * Scalars (and listing entries) per script call. A request touching
 * thousands of series would otherwise pass hundreds of thousands of
 * arguments in one call, beyond what the client can spread onto its stack.
 */
const CHUNK = 1000;

// KEYS: entity hash, last_metrics hash, listing set.
// ARGV: seq, chunk index, at, user, last iteration or '', scalar count, listing count, then per
// scalar FIELDS_PER_SCALAR values (see scalarArgs), then the listing members.
// A chunk is skipped when it (or a later summary) was applied before: (seq, chunk) only grows.
const APPLY = new LuaScript(`
local seq, chunk = tonumber(ARGV[1]), tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'summary_seq', 'summary_chunk')
local applied, appliedChunk = tonumber(state[1] or '-1'), tonumber(state[2] or '-1')
if applied > seq or (applied == seq and appliedChunk >= chunk) then return 0 end
table.remove(ARGV, 2)

local function num(v)
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format('%d', v) end
  for _, f in ipairs({'%.15g', '%.16g'}) do
    local s = string.format(f, v)
    if tonumber(s) == v then return s end
  end
  return string.format('%.17g', v)
end
local function opt(v) if v == nil or v == cjson.null then return nil end return v end

local at = tonumber(ARGV[2])
for _, pair in ipairs({{'last_update'}, {'last_change', 'last_changed_by'}}) do
  local old = tonumber(redis.call('HGET', KEYS[1], pair[1]) or '-1')
  if at >= old then
    redis.call('HSET', KEYS[1], pair[1], ARGV[2])
    if pair[2] then redis.call('HSET', KEYS[1], pair[2], ARGV[3]) end
  end
end
if ARGV[4] ~= '' then
  local old = tonumber(redis.call('HGET', KEYS[1], 'last_iteration') or '0')
  local new = math.max(old, tonumber(ARGV[4]), 0)
  if new ~= old or redis.call('HEXISTS', KEYS[1], 'last_iteration') == 0 then
    redis.call('HSET', KEYS[1], 'last_iteration', num(new))
  end
end

local scalars, listed = tonumber(ARGV[5]), tonumber(ARGV[6])
if scalars > 0 then
  local old = tonumber(redis.call('HGET', KEYS[1], '${LAST_SCALAR_AT_FIELD}') or '-1')
  if at > old then redis.call('HSET', KEYS[1], '${LAST_SCALAR_AT_FIELD}', ARGV[2]) end
end
local base = 7
for s = 0, scalars - 1 do
  local a = base + s * ${FIELDS_PER_SCALAR}
  local field = ARGV[a]
  local oldText = redis.call('HGET', KEYS[2], field)
  local old = nil
  if oldText then old = cjson.decode(oldText) end
  -- each entry: JSON text, or nil for an absent member
  local value, iter, ts = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local minV, minI, maxV, maxI = ARGV[a + 6], ARGV[a + 7], ARGV[a + 8], ARGV[a + 9]
  local firstV, firstI = ARGV[a + 10], ARGV[a + 11]
  local count, sum = tonumber(ARGV[a + 12]), tonumber(ARGV[a + 13])
  local label = nil
  if ARGV[a + 14] == '1' then label = ARGV[a + 15] end
  if old then
    if not (tonumber(minV) < old.min_value) then
      minV = num(old.min_value)
      minI = opt(old.min_value_iteration) and num(old.min_value_iteration) or ''
    end
    if not (tonumber(maxV) > old.max_value) then
      maxV = num(old.max_value)
      maxI = opt(old.max_value_iteration) and num(old.max_value_iteration) or ''
    end
    firstV = num(old.first_value)
    firstI = opt(old.first_value_iteration) and num(old.first_value_iteration) or ''
    local oldCount = old.count or 0
    local total = oldCount + count
    sum = (old.mean_value or 0) * oldCount + sum
    count = total
    if label == nil and opt(old.x_axis_label) then label = cjson.encode(old.x_axis_label) end
  end
  local mean = '0'
  if count > 0 then mean = num(tonumber(string.format('%.2f', sum / count))) end
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
  add('mean_value', mean)
  if label then add('x_axis_label', label) end
  parts[#parts + 1] = '}'
  redis.call('HSET', KEYS[2], field, table.concat(parts))
end
local listing = base + scalars * ${FIELDS_PER_SCALAR}
for i = listing, listing + listed - 1 do redis.call('SADD', KEYS[3], ARGV[i]) end
redis.call('HSET', KEYS[1], 'summary_seq', ARGV[1], 'summary_chunk', chunk)
return 1`);

export class SummaryApplier {
  private readonly keys;

  constructor(
    private readonly client: RedisClient,
    redisPrefix: string,
  ) {
    this.keys = redisKeys(redisPrefix);
  }

  /** Answers true when applied, false when it had been applied before. */
  async apply(summary: EntitySummary, seq: number): Promise<boolean> {
    const { n, e } = summary;
    const chunks = Math.max(1, Math.ceil(summary.scalars.length / CHUNK), Math.ceil(summary.listing.length / CHUNK));
    let applied = false;
    for (let chunk = 0; chunk < chunks; chunk++) {
      const scalars = summary.scalars.slice(chunk * CHUNK, (chunk + 1) * CHUNK);
      const listing = summary.listing.slice(chunk * CHUNK, (chunk + 1) * CHUNK);
      const args: string[] = [
        String(seq),
        String(chunk),
        String(summary.at),
        summary.u ?? '',
        summary.lastIter === undefined || summary.lastIter === null ? '' : String(summary.lastIter),
        String(scalars.length),
        String(listing.length),
      ];
      for (const stats of scalars) for (const arg of scalarArgs(stats)) args.push(arg);
      for (const entry of listing) args.push(entry.join('\u001f'));
      const reply = await APPLY.run(this.client, [this.keys.entity(n, e), this.keys.lastMetrics(n, e), this.keys.metricListing(n, e)], args);
      applied ||= Number(reply) === 1;
    }
    return applied;
  }
}

const text = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v));

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
    String(s.sum),
    hasLabel ? '1' : '0',
    hasLabel ? JSON.stringify(s.x_axis_label) : '',
  ];
}
