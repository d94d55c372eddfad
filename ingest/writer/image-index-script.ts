/**
 * The image index's part of the summary script (summary-applier.ts): what
 * a request's `images` (shared/events/image-index.ts) do to the entity's
 * index, in Lua so that it applies atomically with the summary it came
 * with, and at most once (the script skips summaries it applied before).
 * Applying the same uses twice also leaves the index as once: every step
 * is a union, a maximum or a "newest N".
 *
 * Two hashes per entity, fields JSON [metric, variant]: the index proper
 * (read by a fresh events.debug_images page) and the URLs' latest uses
 * (read only here, to keep the variant's last_invalid_iteration in the
 * index). The index hash's field `~` says whether the index covers every
 * image of the entity: '1' when it began with the entity's first summary
 * (its metric listing was empty), '0' for an entity with events from
 * before the index, or after a summary of an ingest that sends no images;
 * reads fall back to InfluxDB then.
 */
import {
  IMAGE_INDEX_ITERATIONS,
  IMAGE_INDEX_MARKER,
  IMAGE_INDEX_URLS,
  IMAGE_INDEX_USES,
  type VariantImageUses,
} from '../../shared/events/image-index.js';

/** The payload of one script call: '' for a summary without `images` (an older ingest). */
export function imageIndexPayload(images: readonly VariantImageUses[] | undefined): string {
  if (images === undefined) return '';
  return JSON.stringify(images.map(({ m, v, ...uses }) => ({ f: JSON.stringify([m, v]), ...uses })));
}

/** Defines applyImageUses(indexKey, urlsKey, listingWasEmpty, payload). */
export const IMAGE_INDEX_LUA = `
local IMG_ITERS, IMG_USES, IMG_URLS, IMG_MARKER = ${IMAGE_INDEX_ITERATIONS}, ${IMAGE_INDEX_USES}, ${IMAGE_INDEX_URLS}, '${IMAGE_INDEX_MARKER}'
-- Byte order, which is code point order for UTF-8, whatever collation locale Redis runs with.
local function bytesLess(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
-- The greater of two iteration texts; nil and false stand for none.
local function maxIter(a, b)
  if not a then return b end
  if not b then return a end
  if tonumber(b) > tonumber(a) then return b end
  return a
end

-- The variant's iterations above the floor, stored and incoming merged (incoming wins), newest first,
-- cut to the newest IMG_ITERS holding at most IMG_USES images; x: an image got another URL.
local function mergeIterations(stored, incoming, floor)
  local byIter, order, x = {}, {}, false
  local function take(list, isIncoming)
    for _, it in ipairs(list) do
      local text = it[1]
      if not floor or tonumber(text) > tonumber(floor) then
        local e = byIter[text]
        if e == nil then
          e = {n = tonumber(text), t = text, at = {}, uses = {}}
          byIter[text] = e
          order[#order + 1] = e
        end
        for _, use in ipairs(it[2]) do
          local k, u = use[1], use[2]
          local at = e.at[k]
          if at == nil then
            e.uses[#e.uses + 1] = {k, u}
            e.at[k] = #e.uses
          else
            if isIncoming and e.uses[at][2] ~= u then x = true end
            e.uses[at][2] = u
          end
        end
      end
    end
  end
  take(stored, false)
  take(incoming, true)
  table.sort(order, function(a, b) return a.n > b.n end)
  local kept, uses, cut = {}, 0, false
  for _, e in ipairs(order) do
    if not cut and #kept < IMG_ITERS and uses + #e.uses <= IMG_USES then
      kept[#kept + 1] = {e.t, e.uses}
      uses = uses + #e.uses
    else
      cut = true
      floor = maxIter(floor, e.t)
    end
  end
  return kept, floor, x
end

-- Each URL's greatest iteration (with its key) and second-greatest; entries made after URLs were dropped
-- remember the greatest dropped iteration (4th), below which their older uses may be unknown.
local function mergeUrls(map, incoming)
  for _, e in ipairs(incoming) do
    local url, first, firstKey, second = e[1], e[2], e[3], e[4]
    local cur = map.u[url]
    if cur == nil then
      map.u[url] = {first, firstKey, second, map.w or false}
      map.n = map.n + 1
    else
      local cf, nf = tonumber(cur[1]), tonumber(first)
      if nf > cf then
        cur[3] = maxIter(cur[1], second)
        cur[1], cur[2] = first, firstKey
      elseif nf == cf then
        if firstKey ~= cur[2] then cur[3] = cur[1] else cur[3] = maxIter(cur[3], second) or false end
      else
        cur[3] = maxIter(cur[3], first)
      end
    end
  end
  if map.n > IMG_URLS then
    local all = {}
    for url, e in pairs(map.u) do all[#all + 1] = {url, tonumber(e[1]), e[1]} end
    table.sort(all, function(a, b) return a[2] > b[2] end)
    for i = IMG_URLS + 1, #all do
      map.u[all[i][1]] = nil
      map.w = maxIter(map.w, all[i][3])
    end
    map.n = IMG_URLS
  end
end

-- §8.1 last_invalid_iteration: the second-latest use of the smallest URL at the greatest iteration
-- (false: none); nil when the index cannot tell.
local function lastInvalid(top, map)
  if top == nil then return nil end
  local smallest = nil
  for _, use in ipairs(top[2]) do
    if smallest == nil or bytesLess(use[2], smallest) then smallest = use[2] end
  end
  local e = smallest and map.u[smallest]
  if not e or e[1] ~= top[1] then return nil end
  if e[3] ~= false then
    if e[4] == false or tonumber(e[3]) >= tonumber(e[4]) then return e[3] end
    return nil
  end
  if e[4] == false then return false end
  return nil
end

local function applyImageUses(II, IU, listingWasEmpty, payload)
  local marker = redis.call('HGET', II, IMG_MARKER)
  if marker == false then
    if listingWasEmpty then marker = '1' else marker = '0' end
    redis.call('HSET', II, IMG_MARKER, marker)
  end
  if payload == '' then
    if marker == '1' then
      redis.call('DEL', II, IU)
      redis.call('HSET', II, IMG_MARKER, '0')
    end
    return
  end
  if marker ~= '1' then return end
  for _, r in ipairs(cjson.decode(payload)) do
    local stored = redis.call('HGET', II, r.f)
    local idx = {}
    if stored then idx = cjson.decode(stored) end
    local kept, floor, overwritten = mergeIterations(idx.it or {}, r.it, maxIter(idx.b, r.b))
    local x = idx.x == true or r.o == 1 or overwritten
    local li = nil
    if not x then
      local urls = redis.call('HGET', IU, r.f)
      local map = {u = {}, n = 0}
      if urls then map = cjson.decode(urls) end
      mergeUrls(map, r.u)
      li = lastInvalid(kept[1], map)
      redis.call('HSET', IU, r.f, cjson.encode(map))
    else
      redis.call('HDEL', IU, r.f)
    end
    local out = {it = kept, b = floor, li = li}
    if x then out.x = true end
    redis.call('HSET', II, r.f, cjson.encode(out))
  end
end
`;
