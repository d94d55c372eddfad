/**
 * The plain scalar line: the one NDJSON line shape the ClearML SDK sends by
 * the million, recognised from its bytes so that the session can store it
 * without JSON.parse, a raw object, a NormalizedEvent or a record string
 * (ingest-session.ts `addPlainScalarLine`, docs/ingest.md "The plain scalar
 * line").
 *
 * A line is plain when it is exactly a JSON object of these members, each at
 * most once, in any order, with spaces or tabs around its tokens:
 * `type` "training_stats_scalar", `task` a well-formed id, `metric` and
 * `variant` printable ASCII strings without escapes (up to the name cap),
 * `iter` and `timestamp` integers of at most 15 digits (timestamp within its
 * range, neither -0), `value` a finite JSON number, and optionally
 * `model_event` false and `allow_locked` true or false. For such a line the
 * general path's checks all pass and its event is known without running
 * them. Anything else (an escape, a byte above 0x7f, another member or a
 * duplicate one, which JSON.parse would resolve to the last, another type of
 * value, a number out of range) is not plain: the caller hands the line to
 * the general path, so that what the fused path does not read exactly, it
 * does not read at all.
 *
 * Nothing here allocates for a line whose value has at most 17 significant
 * digits and no exponent. Up to 15 digits its double is computed exactly (an
 * integer below 2^53 divided by an exact power of ten is correctly rounded),
 * and its text, trailing fraction zeros cut, is the one String(value) would
 * print (no other decimal of at most 15 digits names that double, so it is
 * the shortest); 16 and 17 digits are read by decimal-double.ts. Other values
 * (exponents, more digits, what decimal-double.ts cannot decide) go through
 * Number() and String() as the general path's do.
 *
 * Names and literals are compared four bytes at a time (byte-literal.ts).
 */
import { pairHash, smallHash, SPAN_HASH_PRIME, SPAN_HASH_SEED } from './ascii-span-map.js';
import { ByteLiteral, sameBytes } from './byte-literal.js';
import { decimalRead, POW10, readDecimal } from './decimal-double.js';
import { MAX_ENTITY_ID_LENGTH, MAX_NAME_LENGTH, MAX_TIMESTAMP } from './event-limits.js';

const TAB = 0x09;
const LF = 0x0a;
const SPACE = 0x20;
const QUOTE = 0x22;
const PLUS = 0x2b;
const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const COLON = 0x3a;
const UPPER_E = 0x45;
const BACKSLASH = 0x5c;
const LOWER_E = 0x65;
const OPEN = 0x7b;
const CLOSE = 0x7d;

const TIMESTAMP = 1;
const TYPE = 2;
const TASK = 4;
const ITER = 8;
const METRIC = 16;
const VARIANT = 32;
const VALUE = 64;
const MODEL_EVENT = 128;
const ALLOW_LOCKED = 256;
const REQUIRED = TIMESTAMP | TYPE | TASK | ITER | METRIC | VARIANT | VALUE;

/** Integers of up to 15 digits are exact doubles whatever their digits (10^15 < 2^53). */
const MAX_EXACT_DIGITS = 15;
/** The most digits decimal-double.ts reads. */
const MAX_DECIMAL_DIGITS = 17;
/** String(x) writes x plainly from 1e-6 up (`0.00000d…`: at most five zeros after the point), with an exponent below. */
const MAX_PLAIN_LEADING_ZEROS = 5;

/** Characters of entity ids (event-fields.ts isWellFormedId): letters, digits, `_`, `.`, `-`. */
export const ID_CHAR = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-') ID_CHAR[c.charCodeAt(0)] = 1;

const SCALAR_TYPE = new ByteLiteral('training_stats_scalar"');
const FALSE = new ByteLiteral('false');
const TRUE = new ByteLiteral('true');
// Member names with their closing quote.
const TIMESTAMP_NAME = new ByteLiteral('timestamp"');
const TYPE_NAME = new ByteLiteral('type"');
const TASK_NAME = new ByteLiteral('task"');
const ITER_NAME = new ByteLiteral('iter"');
const METRIC_NAME = new ByteLiteral('metric"');
const VARIANT_NAME = new ByteLiteral('variant"');
const VALUE_NAME = new ByteLiteral('value"');
const MODEL_EVENT_NAME = new ByteLiteral('model_event"');
const ALLOW_LOCKED_NAME = new ByteLiteral('allow_locked"');

/**
 * What a plain line holds: positions in its bytes and the numbers they read as. One per
 * session, filled line after line; plain-scalar-event.ts fills it for a plain StreamEvents
 * event too, the number texts' positions then in a buffer of its own.
 */
export class PlainScalarLine {
  taskStart = 0;
  taskEnd = 0;
  taskHash = 0;
  metricStart = 0;
  metricEnd = 0;
  variantStart = 0;
  variantEnd = 0;
  /** of metric and variant together */
  seriesHash = 0;
  iterStart = 0;
  iterEnd = 0;
  iter = 0;
  timestampStart = 0;
  timestampEnd = 0;
  timestamp = 0;
  /** the double, -0 made 0 (as parseScalar does) */
  value = 0;
  /** String(value) is the line's bytes [valueStart, valueEnd) when `valueText` is undefined, else `valueText` */
  valueStart = 0;
  valueEnd = 0;
  valueText: string | undefined = undefined;
  /** -1 absent, 0 false, 1 true */
  allowLocked = -1;
}

function skipSpace(bytes: Buffer, at: number, limit: number): number {
  while (at < limit) {
    const c = bytes[at]!;
    if (c !== SPACE && c !== TAB) break;
    at++;
  }
  return at;
}

/** `expected`'s bytes at `at`; answers the position after them or -1. */
function literal(bytes: Buffer, at: number, limit: number, expected: ByteLiteral): number {
  const end = at + expected.bytes.length;
  return end <= limit && sameBytes(bytes, at, end, expected) ? end : -1;
}

// What a step finds beside its answer goes into a module variable (candidateBit, memberEnd,
// stringHash, flag), not an object: nothing is allocated per line. An integer, which may be
// beyond V8's small integers (a timestamp in ms), goes into a Float64Array: a module variable
// holding such a number is a new heap number at every store (16 bytes an event).

/** The member name one or two bytes point to (the comparison decides), with its bit in `candidateBit`. */
let candidateBit = 0;
function candidateName(bytes: Buffer, at: number): ByteLiteral | undefined {
  switch (bytes[at]) {
    case 0x74: {
      const second = bytes[at + 1];
      candidateBit = second === 0x69 ? TIMESTAMP : second === 0x79 ? TYPE : TASK;
      return second === 0x69 ? TIMESTAMP_NAME : second === 0x79 ? TYPE_NAME : TASK_NAME;
    }
    case 0x69:
      candidateBit = ITER;
      return ITER_NAME;
    case 0x6d:
      candidateBit = bytes[at + 1] === 0x65 ? METRIC : MODEL_EVENT;
      return candidateBit === METRIC ? METRIC_NAME : MODEL_EVENT_NAME;
    case 0x76:
      candidateBit = bytes[at + 2] === 0x72 ? VARIANT : VALUE;
      return candidateBit === VARIANT ? VARIANT_NAME : VALUE_NAME;
    case 0x61:
      candidateBit = ALLOW_LOCKED;
      return ALLOW_LOCKED_NAME;
    default:
      return undefined;
  }
}

/** The member whose name starts at `at` (after its quote): its bit, and the position after its closing quote in `memberEnd`; 0 for any other name. */
let memberEnd = 0;
function memberName(bytes: Buffer, at: number, limit: number): number {
  const name = candidateName(bytes, at);
  if (name === undefined) return 0;
  const after = literal(bytes, at, limit, name);
  if (after < 0) return 0;
  memberEnd = after;
  return candidateBit;
}

/**
 * A string at `at` (its opening quote) of at most `cap` characters, each an
 * id character (`id`) or printable ASCII but `"` and `\\` (no escapes);
 * answers the position after it or -1. Hashes it into `stringHash`.
 */
let stringHash = 0;
function asciiString(bytes: Buffer, at: number, limit: number, cap: number, id: boolean): number {
  if (at >= limit || bytes[at] !== QUOTE) return -1;
  const start = at + 1;
  const end = Math.min(limit, start + cap + 1);
  let hash = SPAN_HASH_SEED;
  // Two loops, not a test of `id` per character.
  if (id) {
    for (let i = start; i < end; i++) {
      const c = bytes[i]!;
      if (c === QUOTE) return stringEnd(hash, i);
      if (ID_CHAR[c] === 0) return -1;
      hash = Math.imul(hash ^ c, SPAN_HASH_PRIME);
    }
    return -1;
  }
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) return stringEnd(hash, i);
    if (c < SPACE || c === BACKSLASH || c > 0x7f) return -1;
    hash = Math.imul(hash ^ c, SPAN_HASH_PRIME);
  }
  return -1;
}

function stringEnd(hash: number, quote: number): number {
  stringHash = smallHash(hash);
  return quote + 1;
}

/**
 * A JSON integer of at most 15 digits at `at` (negative when `signed`, but
 * never -0, which the general path prints as 0); answers the position after
 * it or -1, its value in `integer[0]`.
 */
const integer = new Float64Array(1);
function smallInteger(bytes: Buffer, at: number, limit: number, signed: boolean): number {
  const negative = signed && at < limit && bytes[at] === MINUS;
  if (negative) at++;
  const start = at;
  let value = 0;
  while (at < limit) {
    const c = bytes[at]!;
    if (c < ZERO || c > NINE) break;
    value = value * 10 + (c - ZERO);
    at++;
  }
  const digits = at - start;
  if (digits === 0 || digits > MAX_EXACT_DIGITS || (bytes[start] === ZERO && (digits > 1 || negative))) return -1;
  integer[0] = negative ? -value : value;
  return at;
}

function digitsFrom(bytes: Buffer, at: number, limit: number): number {
  while (at < limit) {
    const c = bytes[at]!;
    if (c < ZERO || c > NINE) break;
    at++;
  }
  return at;
}

/** The value of the digits of [from, to) (skipping a decimal point), as an integer (exact up to 15 digits). */
function digitsValue(bytes: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    if (c !== DOT) value = value * 10 + (c - ZERO);
  }
  return value;
}

/** A finite JSON number at `at` into `line.value` and its text; answers the position after it or -1. */
function number(bytes: Buffer, at: number, limit: number, line: PlainScalarLine): number {
  const start = at;
  const negative = bytes[at] === MINUS;
  if (negative) at++;
  const intStart = at;
  const intEnd = digitsFrom(bytes, at, limit);
  if (intEnd === intStart || (bytes[intStart] === ZERO && intEnd - intStart > 1)) return -1;
  at = intEnd;
  let fracStart = at;
  let fracEnd = at;
  if (at < limit && bytes[at] === DOT) {
    fracStart = at + 1;
    fracEnd = digitsFrom(bytes, fracStart, limit);
    if (fracEnd === fracStart) return -1;
    at = fracEnd;
  }
  const c = at < limit ? bytes[at] : 0;
  if (c === LOWER_E || c === UPPER_E) {
    at++;
    if (at < limit && (bytes[at] === PLUS || bytes[at] === MINUS)) at++;
    const expEnd = digitsFrom(bytes, at, limit);
    if (expEnd === at) return -1;
    return slowNumber(bytes, start, expEnd, line);
  }
  // The text without its fraction's trailing zeros (and its point when nothing is left).
  let cut = fracEnd;
  while (cut > fracStart && bytes[cut - 1] === ZERO) cut--;
  const wholeZero = intEnd - intStart === 1 && bytes[intStart] === ZERO;
  // The significant digits: [first, cut), a point between when the integer part has some.
  let first = intStart;
  if (wholeZero) {
    first = fracStart;
    while (first < cut && bytes[first] === ZERO) first++;
    if (first === cut) {
      // 0, -0, 0.000: parseScalar's `|| 0` makes each 0, printed `0`.
      line.value = 0;
      line.valueText = '0';
      return at;
    }
  }
  const scale = cut - fracStart;
  const significant = wholeZero ? cut - first : intEnd - intStart + scale;
  // String() writes |x| < 1e-6 with an exponent.
  if (scale >= POW10.length || (wholeZero && first - fracStart > MAX_PLAIN_LEADING_ZEROS))
    return slowNumber(bytes, start, at, line);
  let magnitude: number;
  if (significant <= MAX_EXACT_DIGITS) magnitude = digitsValue(bytes, first, cut) / POW10[scale]!;
  else if (significant <= MAX_DECIMAL_DIGITS) {
    // The last eight digits apart (a point may be among them).
    let lowStart = cut;
    for (let digits = 0; digits < 8;) if (bytes[--lowStart] !== DOT) digits++;
    if (!readDecimal(digitsValue(bytes, first, lowStart), digitsValue(bytes, lowStart, cut), significant, scale))
      return slowNumber(bytes, start, at, line);
    if (!decimalRead.shortest) {
      line.value = negative ? -decimalRead.value : decimalRead.value;
      line.valueText = String(line.value);
      return at;
    }
    magnitude = decimalRead.value;
  } else return slowNumber(bytes, start, at, line);
  line.value = negative ? -magnitude : magnitude;
  line.valueStart = start;
  line.valueEnd = cut === fracStart ? intEnd : cut;
  line.valueText = undefined;
  return at;
}

/** A number the exact computation does not cover: read and printed as the general path does; -1 when it is no finite double. */
function slowNumber(bytes: Buffer, start: number, end: number, line: PlainScalarLine): number {
  const value = Number(bytes.toString('latin1', start, end));
  if (!Number.isFinite(value)) return -1;
  line.value = value || 0;
  line.valueText = String(line.value);
  return end;
}

/** `false` or `true` at `at`: answers the position after it, the value in `flag`, or -1. */
let flag = 0;
function boolean(bytes: Buffer, at: number, limit: number): number {
  const afterFalse = literal(bytes, at, limit, FALSE);
  if (afterFalse >= 0) {
    flag = 0;
    return afterFalse;
  }
  const afterTrue = literal(bytes, at, limit, TRUE);
  flag = 1;
  return afterTrue;
}

/**
 * Reads the line starting at `start` of `bytes` (it ends at the first `\n`
 * or at `limit`) into `line` when it is plain; answers where it ends (the
 * `\n`'s position, or `limit`), or -1 when it is not plain (`line` then
 * holds nothing of use).
 */
export function readPlainScalarLine(bytes: Buffer, start: number, limit: number, line: PlainScalarLine): number {
  let at = skipSpace(bytes, start, limit);
  if (at >= limit || bytes[at] !== OPEN) return -1;
  at = skipSpace(bytes, at + 1, limit);
  let seen = 0;
  let metricHash = 0;
  let variantHash = 0;
  line.allowLocked = -1;
  for (;;) {
    if (at >= limit || bytes[at] !== QUOTE) return -1;
    const member = memberName(bytes, at + 1, limit);
    if (member === 0 || (seen & member) !== 0) return -1;
    seen |= member;
    at = skipSpace(bytes, memberEnd, limit);
    if (at >= limit || bytes[at] !== COLON) return -1;
    const valueAt = skipSpace(bytes, at + 1, limit);
    switch (member) {
      case TIMESTAMP:
        at = smallInteger(bytes, valueAt, limit, false);
        if (at < 0 || integer[0]! > MAX_TIMESTAMP) return -1;
        line.timestamp = integer[0]!;
        line.timestampStart = valueAt;
        line.timestampEnd = at;
        break;
      case TYPE:
        at = valueAt < limit && bytes[valueAt] === QUOTE ? literal(bytes, valueAt + 1, limit, SCALAR_TYPE) : -1;
        break;
      case TASK:
        at = asciiString(bytes, valueAt, limit, MAX_ENTITY_ID_LENGTH, true);
        if (at === valueAt + 2) return -1;
        line.taskStart = valueAt + 1;
        line.taskEnd = at - 1;
        line.taskHash = stringHash;
        break;
      case ITER:
        at = smallInteger(bytes, valueAt, limit, true);
        line.iter = integer[0]!;
        line.iterStart = valueAt;
        line.iterEnd = at;
        break;
      case METRIC:
        at = asciiString(bytes, valueAt, limit, MAX_NAME_LENGTH, false);
        metricHash = stringHash;
        line.metricStart = valueAt + 1;
        line.metricEnd = at - 1;
        break;
      case VARIANT:
        at = asciiString(bytes, valueAt, limit, MAX_NAME_LENGTH, false);
        variantHash = stringHash;
        line.variantStart = valueAt + 1;
        line.variantEnd = at - 1;
        break;
      case VALUE:
        at = number(bytes, valueAt, limit, line);
        break;
      case MODEL_EVENT:
        at = literal(bytes, valueAt, limit, FALSE);
        break;
      case ALLOW_LOCKED:
        at = boolean(bytes, valueAt, limit);
        line.allowLocked = flag;
        break;
    }
    if (at < 0) return -1;
    at = skipSpace(bytes, at, limit);
    if (at >= limit) return -1;
    const c = bytes[at];
    if (c === CLOSE) break;
    if (c !== COMMA) return -1;
    at = skipSpace(bytes, at + 1, limit);
  }
  if ((seen & REQUIRED) !== REQUIRED) return -1;
  at = skipSpace(bytes, at + 1, limit);
  if (at < limit && bytes[at] !== LF) return -1;
  line.seriesHash = pairHash(metricHash, variantHash);
  return at;
}
