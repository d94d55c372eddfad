/**
 * The plain scalar event: what the plain scalar line (plain-scalar-line.ts)
 * is to add_batch, for StreamEvents. The SDK-shaped scalar `Event` of a
 * chunk (events_ingest.proto) is recognised from its protobuf bytes, so that
 * the session stores it without a raw object, a NormalizedEvent or a record
 * string (ingest-session.ts `addPlainScalarEvent`, docs/ingest.md "The plain
 * scalar event").
 *
 * An event is plain when its records are exactly these, each at most once,
 * in any order: `type` "training_stats_scalar", `task` a well-formed id,
 * `iter` a safe integer, `value` a finite double, and optionally
 * `timestamp_ms` a double whose whole part is within the timestamp range
 * (absent: the time the request was received), `metric` and `variant` ASCII
 * strings up to the name cap (absent: `""`), `model_event` false and
 * `allow_locked`, booleans of one byte. For such an event the general path's checks all pass and its
 * event is known without running them. Anything else is not plain and goes
 * to the general path whole: a record repeated (protobuf's last one wins,
 * which the general path resolves), any other field (`worker`,
 * `x_axis_label`, `timestamp_text`, `values`, `model`, ... even where the
 * general path would ignore it), an absent `iter` or `value` (a proto3
 * encoder without presence leaves out 0: the general path decides what
 * that means), a byte above 0x7f, a NaN or infinite value, an iteration
 * beyond 2^53, a varint longer than this reader takes.
 *
 * The numbers' texts the J record needs are written into `texts` (the
 * timestamp's and the iteration's digits) or kept as `valueText`: String()
 * of the value, as EventEncoder prints it; `line`'s spans for them point
 * into `texts`, its name spans into the chunk's bytes.
 */
import { pairHash, smallHash, SPAN_HASH_PRIME, SPAN_HASH_SEED } from './ascii-span-map.js';
import { ByteLiteral, sameBytes } from './byte-literal.js';
import { MAX_ENTITY_ID_LENGTH, MAX_NAME_LENGTH, MAX_TIMESTAMP } from './event-limits.js';
import { ID_CHAR, type PlainScalarLine } from './plain-scalar-line.js';

/** Tags (field number << 3 | wire type) of the Event fields a plain event may have. */
const TYPE = (1 << 3) | 2;
const TASK = (2 << 3) | 2;
const ITER = (3 << 3) | 0;
const METRIC = (4 << 3) | 2;
const VARIANT = (5 << 3) | 2;
const VALUE = (6 << 3) | 1;
const TIMESTAMP_MS = (8 << 3) | 1;
const MODEL_EVENT = (16 << 3) | 0;
const ALLOW_LOCKED = (18 << 3) | 0;

/** The fields seen, one bit each. */
const SEEN_TYPE = 1;
const SEEN_TASK = 2;
const SEEN_ITER = 4;
const SEEN_METRIC = 8;
const SEEN_VARIANT = 16;
const SEEN_VALUE = 32;
const SEEN_TIMESTAMP = 64;
const SEEN_MODEL_EVENT = 128;
const SEEN_ALLOW_LOCKED = 256;
const REQUIRED = SEEN_TYPE | SEEN_TASK | SEEN_ITER | SEEN_VALUE;

/** A sint64 of a safe integer takes at most 8 varint bytes (zigzag needs 54 bits). */
const MAX_ITER_BYTES = 8;

const SCALAR_TYPE = new ByteLiteral('training_stats_scalar');
const EMPTY_HASH = smallHash(SPAN_HASH_SEED);

const ZERO = 0x30;
const MINUS = 0x2d;
/** Where the iteration's digits go in `texts` (the timestamp's, at most 15, go first). */
const ITER_TEXT_AT = 16;
/** What `texts` must hold: the timestamp's digits, then the iteration's sign and up to 16 digits. */
export const PLAIN_EVENT_TEXTS_BYTES = ITER_TEXT_AT + 17;

// A step answers the position after what it read (-1: not plain); what it found beside goes
// into module variables (found, hash), not an object: nothing is allocated per event.
let found = 0;
let hash = 0;

/**
 * A varint of one or two bytes at `at` into `found`: every tag of a plain event, and every
 * length of its strings (MAX_NAME_LENGTH < 2^14).
 */
function shortVarint(bytes: Buffer, at: number, end: number): number {
  if (at >= end) return -1;
  const first = bytes[at]!;
  if (first < 0x80) {
    found = first;
    return at + 1;
  }
  if (at + 1 >= end) return -1;
  const second = bytes[at + 1]!;
  found = (first & 0x7f) | (second << 7);
  return second < 0x80 ? at + 2 : -1;
}

/** A string at `at` (its length first) of at most `cap` bytes within `end`: answers its end, its start in `found`. */
function string(bytes: Buffer, at: number, end: number, cap: number): number {
  at = shortVarint(bytes, at, end);
  if (at < 0 || found > cap || at + found > end) return -1;
  const stop = at + found;
  found = at;
  return stop;
}

/** `string` of ASCII bytes, id characters only when `id`; hashes it into `hash`. */
function asciiString(bytes: Buffer, at: number, end: number, cap: number, id: boolean): number {
  const stop = string(bytes, at, end, cap);
  if (stop < 0) return -1;
  let h = SPAN_HASH_SEED;
  // Two loops, not a test of `id` per byte.
  if (id) {
    for (let i = found; i < stop; i++) {
      const c = bytes[i]!;
      if (ID_CHAR[c] === 0) return -1;
      h = Math.imul(h ^ c, SPAN_HASH_PRIME);
    }
  } else {
    for (let i = found; i < stop; i++) {
      const c = bytes[i]!;
      if (c > 0x7f) return -1;
      h = Math.imul(h ^ c, SPAN_HASH_PRIME);
    }
  }
  hash = smallHash(h);
  return stop;
}

/** A sint64 at `at` that is a safe integer into `found` (not one, or a varint longer than MAX_ITER_BYTES: -1). */
function safeSint64(bytes: Buffer, at: number, end: number): number {
  if (at >= end) return -1;
  // Zigzag: the lowest bit is the sign, the rest the magnitude (less one when negative). The
  // rest is summed apart from the sign bit: the whole varint may need 54 bits, beyond what a
  // double holds exactly, and a sum reaching 2^53 is no safe integer whether it rounded or not.
  let b = bytes[at++]!;
  const negative = (b & 1) === 1;
  let half = (b & 0x7f) >>> 1;
  for (let i = 1, scale = 64; b >= 0x80; i++, scale *= 128) {
    if (i === MAX_ITER_BYTES || at >= end) return -1;
    b = bytes[at++]!;
    half += (b & 0x7f) * scale;
  }
  found = negative ? -half - 1 : half;
  return Number.isSafeInteger(found) ? at : -1;
}

/** Digits below 10^8 fit an int32: their arithmetic stays in integers (a double's `%` is a call to fmod). */
const LOW = 1e8;

/** The digits of `n` (0 <= n < 10^8) ending at `to[stop - 1]`, `digits` of them (leading zeros when more than n has). */
function writeDigits(n: number, digits: number, to: Buffer, stop: number): void {
  for (let j = stop - 1; j >= stop - digits; j--) {
    const rest = (n / 10) | 0;
    to[j] = ZERO + n - rest * 10;
    n = rest;
  }
}

function digitCount(n: number): number {
  let digits = 1;
  for (; n >= 10; n = (n / 10) | 0) digits++;
  return digits;
}

/** The decimal text of a safe integer at `to[from]`, as String() prints it; answers its end. */
function writeInteger(n: number, to: Buffer, from: number): number {
  let i = from;
  if (n < 0) {
    to[i++] = MINUS;
    n = -n;
  }
  if (n < LOW) {
    const stop = i + digitCount(n);
    writeDigits(n, stop - i, to, stop);
    return stop;
  }
  // Two parts, each exact: n < 2^53 < 10^16, so the high one is below 10^8 too.
  let high = Math.floor(n / LOW);
  let low = n - high * LOW;
  // n / LOW may round up to the next integer (its ulp near 2^53 is above 1e-8).
  if (low < 0) {
    high -= 1;
    low += LOW;
  }
  const stop = i + digitCount(high) + 8;
  writeDigits(low, 8, to, stop);
  writeDigits(high, stop - 8 - i, to, stop - 8);
  return stop;
}

/**
 * Reads the Event message `bytes[start, end)` (of a chunk the chunk reader
 * checked, though nothing here relies on it) into `line` when it is plain,
 * its numbers' texts into `texts` (PLAIN_EVENT_TEXTS_BYTES long); answers
 * whether it is (`line` and `texts` hold nothing of use when not).
 * `receivedAt`: the timestamp of an event without one.
 */
export function readPlainScalarEvent(
  bytes: Buffer,
  start: number,
  end: number,
  line: PlainScalarLine,
  texts: Buffer,
  receivedAt: number,
): boolean {
  let at = start;
  let seen = 0;
  let metricHash = EMPTY_HASH;
  let variantHash = EMPTY_HASH;
  let timestamp = receivedAt;
  line.metricStart = line.metricEnd = line.variantStart = line.variantEnd = 0;
  line.allowLocked = -1;
  while (at < end) {
    at = shortVarint(bytes, at, end);
    let bit: number;
    switch (at < 0 ? -1 : found) {
      case TYPE: {
        bit = SEEN_TYPE;
        at = string(bytes, at, end, SCALAR_TYPE.bytes.length);
        if (at < 0 || !sameBytes(bytes, found, at, SCALAR_TYPE)) return false;
        break;
      }
      case TASK:
        bit = SEEN_TASK;
        at = asciiString(bytes, at, end, MAX_ENTITY_ID_LENGTH, true);
        // Not empty either.
        if (at < 0 || at === found) return false;
        line.taskStart = found;
        line.taskEnd = at;
        line.taskHash = hash;
        break;
      case METRIC:
        bit = SEEN_METRIC;
        at = asciiString(bytes, at, end, MAX_NAME_LENGTH, false);
        if (at < 0) return false;
        line.metricStart = found;
        line.metricEnd = at;
        metricHash = hash;
        break;
      case VARIANT:
        bit = SEEN_VARIANT;
        at = asciiString(bytes, at, end, MAX_NAME_LENGTH, false);
        if (at < 0) return false;
        line.variantStart = found;
        line.variantEnd = at;
        variantHash = hash;
        break;
      case ITER:
        bit = SEEN_ITER;
        // Far above MIN_ITER, and printed by String() (storage-layout.ts iterTimeText).
        at = safeSint64(bytes, at, end);
        if (at < 0) return false;
        line.iter = found;
        break;
      case VALUE: {
        bit = SEEN_VALUE;
        if (at + 8 > end) return false;
        const value = bytes.readDoubleLE(at);
        at += 8;
        if (!Number.isFinite(value)) return false;
        // -0 is stored as 0 (event-fields.ts parseScalar).
        line.value = value || 0;
        break;
      }
      case TIMESTAMP_MS: {
        bit = SEEN_TIMESTAMP;
        if (at + 8 > end) return false;
        // checkedTimestamp: the whole milliseconds, -0 made 0, then the range.
        const ms = Math.trunc(bytes.readDoubleLE(at));
        at += 8;
        if (!(ms >= 0 && ms <= MAX_TIMESTAMP)) return false;
        timestamp = ms + 0;
        break;
      }
      // One-byte bools: model_event false only; allow_locked either.
      case MODEL_EVENT:
        bit = SEEN_MODEL_EVENT;
        if (at >= end || bytes[at++] !== 0) return false;
        break;
      case ALLOW_LOCKED:
        bit = SEEN_ALLOW_LOCKED;
        if (at >= end || bytes[at]! > 1) return false;
        line.allowLocked = bytes[at++]!;
        break;
      default:
        return false;
    }
    if ((seen & bit) !== 0) return false;
    seen |= bit;
  }
  if ((seen & REQUIRED) !== REQUIRED || at !== end) return false;
  // A clock that is not whole milliseconds (tests' own) is printed by the general path.
  if (!Number.isSafeInteger(timestamp)) return false;
  line.seriesHash = pairHash(metricHash, variantHash);
  line.timestamp = timestamp;
  line.timestampStart = 0;
  line.timestampEnd = writeInteger(timestamp, texts, 0);
  line.iterStart = ITER_TEXT_AT;
  line.iterEnd = writeInteger(line.iter, texts, ITER_TEXT_AT);
  line.valueText = String(line.value);
  return true;
}
