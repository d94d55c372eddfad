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

// What a step finds beside its answer goes into module variables (at, hash), not an object:
// nothing is allocated per event.
let at = 0;
let hash = 0;

/** A varint of one or two bytes at `at`, or -1: every tag of a plain event, and every length of its names (MAX_NAME_LENGTH < 2^14). */
function shortVarint(bytes: Buffer, end: number): number {
  if (at >= end) return -1;
  const first = bytes[at++]!;
  if (first < 0x80) return first;
  if (at >= end) return -1;
  const second = bytes[at++]!;
  return second < 0x80 ? (first & 0x7f) | (second << 7) : -1;
}

/** A string's length at `at`, when the string (at most `cap` bytes) ends within `end`; else -1. */
function stringLength(bytes: Buffer, end: number, cap: number): number {
  const length = shortVarint(bytes, end);
  return length < 0 || length > cap || at + length > end ? -1 : length;
}

/** An ASCII string at `at` of at most `cap` bytes, id characters only when `id`; hashes it into `hash`, answers its end or -1. */
function asciiString(bytes: Buffer, end: number, cap: number, id: boolean): number {
  const length = stringLength(bytes, end, cap);
  if (length < 0) return -1;
  const stop = at + length;
  let h = SPAN_HASH_SEED;
  // Two loops, not a test of `id` per byte.
  if (id) {
    for (let i = at; i < stop; i++) {
      const c = bytes[i]!;
      if (ID_CHAR[c] === 0) return -1;
      h = Math.imul(h ^ c, SPAN_HASH_PRIME);
    }
  } else {
    for (let i = at; i < stop; i++) {
      const c = bytes[i]!;
      if (c > 0x7f) return -1;
      h = Math.imul(h ^ c, SPAN_HASH_PRIME);
    }
  }
  hash = smallHash(h);
  return stop;
}

/** A sint64 at `at` that is a safe integer, or NaN (also for varints longer than MAX_ITER_BYTES). */
function safeSint64(bytes: Buffer, end: number): number {
  if (at >= end) return Number.NaN;
  // Zigzag: the lowest bit is the sign, the rest the magnitude (less one when negative). The
  // rest is summed apart from the sign bit: the whole varint may need 54 bits, beyond what a
  // double holds exactly, and a sum reaching 2^53 is no safe integer whether it rounded or not.
  let b = bytes[at++]!;
  const negative = (b & 1) === 1;
  let half = (b & 0x7f) >>> 1;
  for (let i = 1, scale = 64; b >= 0x80; i++, scale *= 128) {
    if (i === MAX_ITER_BYTES || at >= end) return Number.NaN;
    b = bytes[at++]!;
    half += (b & 0x7f) * scale;
  }
  const value = negative ? -half - 1 : half;
  return Number.isSafeInteger(value) ? value : Number.NaN;
}

/** A one-byte bool (0 or 1) at `at`, or -1. */
function oneByteBool(bytes: Buffer, end: number): number {
  if (at >= end) return -1;
  const b = bytes[at++]!;
  return b <= 1 ? b : -1;
}

/** A double at `at`, or NaN when it does not fit before `end`. */
function double(bytes: Buffer, end: number): number {
  if (at + 8 > end) return Number.NaN;
  const value = bytes.readDoubleLE(at);
  at += 8;
  return value;
}

/** The decimal text of a safe integer at `to[from]`, as String() prints it; answers its end. */
function writeInteger(n: number, to: Buffer, from: number): number {
  let i = from;
  if (n < 0) {
    to[i++] = MINUS;
    n = -n;
  }
  let digits = 1;
  for (let rest = n; rest >= 10; rest = (rest - (rest % 10)) / 10) digits++;
  const stop = i + digits;
  for (let j = stop - 1; j >= i; j--) {
    const digit = n % 10;
    to[j] = ZERO + digit;
    n = (n - digit) / 10;
  }
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
  at = start;
  let seen = 0;
  let metricHash = EMPTY_HASH;
  let variantHash = EMPTY_HASH;
  let timestamp = receivedAt;
  line.metricStart = line.metricEnd = line.variantStart = line.variantEnd = 0;
  line.allowLocked = -1;
  while (at < end) {
    const tag = shortVarint(bytes, end);
    let bit: number;
    let stop = 0;
    switch (tag) {
      case TYPE: {
        bit = SEEN_TYPE;
        const length = stringLength(bytes, end, SCALAR_TYPE.bytes.length);
        if (length < 0 || !sameBytes(bytes, at, at + length, SCALAR_TYPE)) return false;
        at += length;
        break;
      }
      case TASK:
        bit = SEEN_TASK;
        stop = asciiString(bytes, end, MAX_ENTITY_ID_LENGTH, true);
        if (stop <= at) return false;
        line.taskStart = at;
        line.taskEnd = at = stop;
        line.taskHash = hash;
        break;
      case METRIC:
        bit = SEEN_METRIC;
        stop = asciiString(bytes, end, MAX_NAME_LENGTH, false);
        if (stop < 0) return false;
        line.metricStart = at;
        line.metricEnd = at = stop;
        metricHash = hash;
        break;
      case VARIANT:
        bit = SEEN_VARIANT;
        stop = asciiString(bytes, end, MAX_NAME_LENGTH, false);
        if (stop < 0) return false;
        line.variantStart = at;
        line.variantEnd = at = stop;
        variantHash = hash;
        break;
      case ITER:
        bit = SEEN_ITER;
        line.iter = safeSint64(bytes, end);
        // Far above MIN_ITER, and printed by String() (storage-layout.ts iterTimeText).
        if (Number.isNaN(line.iter)) return false;
        break;
      case VALUE: {
        bit = SEEN_VALUE;
        const value = double(bytes, end);
        if (!Number.isFinite(value)) return false;
        // -0 is stored as 0 (event-fields.ts parseScalar).
        line.value = value || 0;
        break;
      }
      case TIMESTAMP_MS: {
        bit = SEEN_TIMESTAMP;
        // checkedTimestamp: the whole milliseconds, -0 made 0, then the range.
        const ms = Math.trunc(double(bytes, end));
        if (!(ms >= 0 && ms <= MAX_TIMESTAMP)) return false;
        timestamp = ms + 0;
        break;
      }
      case MODEL_EVENT:
        bit = SEEN_MODEL_EVENT;
        if (oneByteBool(bytes, end) !== 0) return false;
        break;
      case ALLOW_LOCKED:
        bit = SEEN_ALLOW_LOCKED;
        line.allowLocked = oneByteBool(bytes, end);
        if (line.allowLocked < 0) return false;
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
