/**
 * The image index's part of the summary script (summary-applier.ts): what
 * a request's `images` (shared/events/image-index.ts) do to the entity's
 * index, in Lua so that it applies atomically with the summary it came
 * with, and at most once (the script skips summaries it applied before).
 * Applying the same uses twice also leaves the index as once: every step
 * is a union, a maximum or a "newest N".
 *
 * Two hashes per entity: the index proper, fields JSON [metric, variant]
 * (read by a fresh events.debug_images page), and each URL's latest uses,
 * one field per (variant, URL), read only here to keep the variant's
 * last_invalid_iteration in the index: one field per URL a request names
 * is read and written, where a JSON map of a variant's URLs cost ~0.25 ms
 * of Redis a variant per request to decode and encode (measured). The
 * index hash's field `~` says whether the index covers every image of the
 * entity: '1' when it began with the entity's first summary
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

-- Each URL's greatest iteration, the key used there and its second-greatest, one field per (variant, URL):
-- '<first>\\31<key>\\31<second or "">' (keys are stored tag values, which never hold \\31). Answers the
-- variant's count of URLs followed; beyond IMG_URLS the caller stops following them.
local function mergeUrls(IU, f, n, incoming)
  for _, e in ipairs(incoming) do
    local first, firstKey, second = e[2], e[3], e[4]
    local field = f .. '\\31' .. e[1]
    local stored = redis.call('HGET', IU, field)
    if stored == false then
      n = n + 1
      if n > IMG_URLS then return n end
      redis.call('HSET', IU, field, first .. '\\31' .. firstKey .. '\\31' .. (second or ''))
    else
      local cf, ck, cs = string.match(stored, '^([^\\31]*)\\31([^\\31]*)\\31([^\\31]*)$')
      if cs == '' then cs = false end
      local nf, nfv = tonumber(cf), tonumber(first)
      if nfv > nf then
        cs = maxIter(cf, second)
        cf, ck = first, firstKey
      elseif nfv == nf then
        if firstKey ~= ck then cs = cf else cs = maxIter(cs, second) end
      else
        cs = maxIter(cs, first)
      end
      local out = cf .. '\\31' .. ck .. '\\31' .. (cs or '')
      if out ~= stored then redis.call('HSET', IU, field, out) end
    end
  end
  return n
end

-- §8.1 last_invalid_iteration: the second-latest use of the smallest URL at the greatest iteration
-- (false: none); nil when the index cannot tell.
local function lastInvalid(IU, f, top)
  if top == nil then return nil end
  local smallest = nil
  for _, use in ipairs(top[2]) do
    if smallest == nil or bytesLess(use[2], smallest) then smallest = use[2] end
  end
  if smallest == nil then return nil end
  local stored = redis.call('HGET', IU, f .. '\\31' .. smallest)
  if stored == false then return nil end
  local first, _, second = string.match(stored, '^([^\\31]*)\\31([^\\31]*)\\31([^\\31]*)$')
  if first ~= top[1] then return nil end
  if second == '' then return false end
  return second
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
    local n = idx.n or 0
    local li = nil
    if not x then
      n = mergeUrls(IU, r.f, n, r.u)
      if n > IMG_URLS then x = true else li = lastInvalid(IU, r.f, kept[1]) end
    end
    local out = {it = kept, b = floor, li = li}
    -- Once validity is unknown the URLs are no longer followed (their fields stay, at most IMG_URLS).
    if x then out.x = true else out.n = n end
    redis.call('HSET', II, r.f, cjson.encode(out))
  end
end
`;
