/**
 * Appends a task's log lines to its Redis streams. Entry id
 * `<max(0, timestamp ms)>-<arrival seq>` puts entries in the read order
 * (timestamp, then arrival), but XADD refuses an id below the stream's top
 * and logs arrive out of timestamp order (several processes logging to one
 * task). So a task has segments: an entry goes to the first segment whose
 * top is below it, and a new segment is opened when none is; readers merge
 * the segments (few in practice: one per "wave" of late lines).
 *
 * One script call per task and batch, entries sorted by id. When some entry
 * may already be stored (a redelivered message, a retried call), the script
 * first looks each id up in every segment and skips those it finds: log
 * lines have no identity of their own, so this is what keeps redelivery from
 * duplicating them. Fresh messages skip the look-up when their id is above
 * segment 0's top, where no stored id can be (the common case: lines in
 * time order); below it they are looked up too, so that a call landing after
 * the next owner of the partition stored the same lines (a writer paused
 * past its lease, docs/scaling.md) adds nothing twice.
 *
 * Retention (LOG_RETENTION_MAX_LINES, LOG_RETENTION_MAX_AGE_MS; default keep
 * everything) is applied by the same call, to the task it appends to: lines
 * whose timestamp is older than the age limit go, then the oldest lines
 * beyond the count limit, across segments (the k oldest of the merged order
 * are exactly those below the (k+1)-th smallest id, so one XTRIM MINID per
 * segment removes them).
 */
import { redisKeys } from '../../shared/stores/redis-keys.js';
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { LuaScript } from '../../shared/stores/lua-script.js';
import type { TaskLogs } from './write-batch.js';

// KEYS[1] segment count, then segment 0, 1, ... as far as the caller knows them plus one (room for a
// new segment). ARGV[1] '1' to skip existing ids, ARGV[2] most lines kept (0: all), ARGV[3] oldest
// timestamp kept (0: all), then id, event JSON pairs sorted by id.
// Replies {'added', n, segments, trimmed}, or {'segments', n} when the task has more segments than keys were passed.
const APPEND = new LuaScript(`
local count = tonumber(redis.call('GET', KEYS[1]) or '1')
if count + 1 > #KEYS - 1 then return {'segments', count} end
local initial = count
local function segment(i) return KEYS[i + 2] end
local function parse(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end
local topMs, topSeq = {}, {}
for i = 0, count - 1 do
  topMs[i], topSeq[i] = -1, -1
  if redis.call('EXISTS', segment(i)) == 1 then
    local info = redis.call('XINFO', 'STREAM', segment(i))
    for j = 1, #info, 2 do
      if info[j] == 'last-generated-id' then topMs[i], topSeq[i] = parse(info[j + 1]) end
    end
  end
end
local check = ARGV[1] == '1'
local maxLines, minMs = tonumber(ARGV[2]), tonumber(ARGV[3])
local added = 0
for j = 4, #ARGV, 2 do
  local id = ARGV[j]
  local ms, seq = parse(id)
  local exists = false
  -- An id already stored lies at or below segment 0's top (tops only grow, and a segment takes
  -- only ids below the tops of the segments before it): only such ids need the look-up.
  if check or not (ms > topMs[0] or (ms == topMs[0] and seq > topSeq[0])) then
    for i = 0, count - 1 do
      if #redis.call('XRANGE', segment(i), id, id) > 0 then exists = true break end
    end
  end
  if not exists then
    local target = nil
    for i = 0, count - 1 do
      if ms > topMs[i] or (ms == topMs[i] and seq > topSeq[i]) then target = i break end
    end
    if target == nil then
      -- Every segment's top is above this entry: open one more. Entries come sorted, so the new
      -- segment takes every later one: one new segment per call at most, whose key was passed.
      target = count
      count = count + 1
    end
    redis.call('XADD', segment(target), id, 'd', ARGV[j + 1])
    topMs[target], topSeq[target] = ms, seq
    added = added + 1
  end
end
if count ~= initial then redis.call('SET', KEYS[1], count) end

local trimmed = 0
if minMs > 0 then
  for i = 0, count - 1 do trimmed = trimmed + redis.call('XTRIM', segment(i), 'MINID', '=', minMs) end
end
if maxLines > 0 then
  local total = 0
  for i = 0, count - 1 do total = total + redis.call('XLEN', segment(i)) end
  local excess = total - maxLines
  if excess > 0 then
    -- The (excess + 1)-th smallest id over all segments: every id below it goes.
    local heads = {}
    for i = 0, count - 1 do
      for _, entry in ipairs(redis.call('XRANGE', segment(i), '-', '+', 'COUNT', excess + 1)) do
        local ms, seq = parse(entry[1])
        heads[#heads + 1] = {ms, seq, entry[1]}
      end
    end
    table.sort(heads, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
    local threshold = heads[excess + 1][3]
    for i = 0, count - 1 do trimmed = trimmed + redis.call('XTRIM', segment(i), 'MINID', '=', threshold) end
  end
end
return {'added', added, count, trimmed}`);

/** Tasks whose segment count is remembered (a partition's writer is the only one appending to its tasks). */
const MAX_REMEMBERED = 10_000;

/**
 * The millisecond part of a line's entry id: the timestamp, floored at 0;
 * undefined when no stream id can hold it. Redis takes up to 2^64 - 1, but
 * the id is built from a JS number, exact only up to 2^53 - 1 (year 285,616).
 */
export function logEntryMs(timestamp: number): number | undefined {
  if (!Number.isFinite(timestamp)) return undefined;
  const ms = Math.max(0, Math.trunc(timestamp));
  return ms <= Number.MAX_SAFE_INTEGER ? ms : undefined;
}

/** How long and how many log lines a task keeps (0: no limit). */
export interface LogRetention {
  maxLines: number;
  maxAgeMs: number;
}

export class LogSegmentAppender {
  private readonly keys;
  private readonly segmentCounts = new Map<string, number>();

  constructor(
    private readonly client: RedisClient,
    redisPrefix: string,
    private readonly retention: LogRetention = { maxLines: 0, maxAgeMs: 0 },
    private readonly now: () => number = Date.now,
  ) {
    this.keys = redisKeys(redisPrefix);
  }

  /** Appends the given lines (indexes into `logs`); answers how many were added (skipped duplicates excluded). */
  async append(task: string, logs: TaskLogs, lines: readonly number[], mayExist: boolean): Promise<number> {
    if (lines.length === 0) return 0;
    const ts = new Array<number>(logs.timestamps.length);
    for (const i of lines) {
      const ms = logEntryMs(logs.timestamps[i]!);
      // WriteBatch refuses such lines before they get here: never send Redis an id it refuses.
      if (ms === undefined) throw new RangeError(`log timestamp ${logs.timestamps[i]} cannot form a stream id`);
      ts[i] = ms;
    }
    // Stable: lines of one millisecond stay in arrival order.
    const order = [...lines].sort((a, b) => ts[a]! - ts[b]!);
    const { maxLines, maxAgeMs } = this.retention;
    const args = new Array<string>(3 + order.length * 2);
    args[0] = mayExist ? '1' : '0';
    args[1] = String(maxLines);
    args[2] = String(maxAgeMs > 0 ? Math.max(1, this.now() - maxAgeMs) : 0);
    for (let k = 0; k < order.length; k++) {
      const i = order[k]!;
      args[3 + 2 * k] = `${ts[i]}-${logs.seqs[i]}`;
      args[4 + 2 * k] = logs.events[i]!;
    }
    let known = this.segmentCounts.get(task) ?? 1;
    for (;;) {
      const keys = [this.keys.logSegmentCount(task)];
      for (let n = 0; n <= known; n++) keys.push(this.keys.logSegment(task, n));
      const reply = (await APPEND.run(this.client, keys, args)) as [string, number, number?];
      if (reply[0] === 'segments') {
        // More segments than we knew of (another writer owned the partition before): pass them all.
        known = Number(reply[1]);
        continue;
      }
      this.remember(task, Number(reply[2]));
      return Number(reply[1]);
    }
  }

  private remember(task: string, count: number): void {
    this.segmentCounts.delete(task);
    if (this.segmentCounts.size >= MAX_REMEMBERED) this.segmentCounts.delete(this.segmentCounts.keys().next().value!);
    this.segmentCounts.set(task, count);
  }
}
