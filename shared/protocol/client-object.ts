/**
 * Client-supplied objects, made harmless before any code walks them
 * (docs/protocol.md, "Hostile call data"). Keys that name a prototype are
 * refused wherever they appear, every object gets a null prototype (so no
 * name, whatever it is, reads or writes an inherited member), and nesting is
 * bounded, so that every recursive walker downstream (zod, error messages,
 * JSON.stringify, the query language) has a known stack depth.
 */
import { apiError, type ApiError } from '../errors/error-catalogue.js';

/** Keys through which an assignment or a lookup reaches a prototype. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Deepest nesting of objects and lists accepted in buffered call data: the
 * body object itself is level 1. ClearML clients send at most a handful of
 * levels (filters, metric lists); 100 leaves room for any honest request and
 * keeps recursion over call data far from the stack limit.
 */
export const MAX_CALL_DATA_DEPTH = 100;

export function prototypeKeyError(name: string): ApiError {
  return apiError('validation_error', `key '${name}' is not allowed`);
}

export function tooDeepError(limit = MAX_CALL_DATA_DEPTH): ApiError {
  return apiError('validation_error', `request data is nested deeper than ${limit} levels`);
}

/** Throws 400/12 when `name` is a prototype key. */
export function assertOwnKeyName(name: string): void {
  if (PROTOTYPE_KEYS.has(name)) throw prototypeKeyError(name);
}

/** An empty object without a prototype: any client-chosen name is an own key or nothing. */
export function nullObject<T = unknown>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `object[key]` when it is an own property; never an inherited member. */
export function ownValue(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_LIST = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_LIST = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Objects and lists JSON.parse is given at most in a text of `length`
 * characters: 10,000, and one more per 16 characters. JSON.parse spends about
 * 0.5 µs and 64 bytes of heap on an empty object and 0.06 µs and 10 bytes on a
 * number, so text of nothing but `{},` (22 million objects in 64 MiB) took
 * 43 s of CPU and 1.4 GB of heap, against 1.8 s and 320 MB for 64 MiB of
 * numbers. At one container per 16 characters, containers cost no more a
 * character than numbers do; the 10,000 any text may hold cost at most ~5 ms
 * and ~640 KB, and keep a `type` nested 10,000 deep an invalid event rather
 * than a refused request (docs/ingest.md). Honest call data and events hold
 * one every 100 characters or fewer (a plot's numbers sit in long lists).
 */
export function maxJsonContainers(length: number): number {
  return 10_000 + Math.floor(length / 16);
}

/** Shortest well-formed text that can hold more containers than maxJsonContainers allows (each takes two characters). */
const SHORTEST_CONTAINER_BOMB = 22_858;

export function tooManyContainersError(length: number): ApiError {
  return apiError(
    'validation_error',
    `request data holds more than ${maxJsonContainers(length)} objects and lists in ${length} characters: at most 10000 and one per 16 characters`,
  );
}

/**
 * What makes a JSON text too costly for JSON.parse, read from the text before
 * it is parsed: nesting deeper than `maxDepth` ('deep'; a text of `[`
 * repeated millions of times costs seconds and gigabytes inside JSON.parse)
 * or more objects and lists than maxJsonContainers ('containers'). Brackets
 * in strings are skipped (the closing quote is found with indexOf).
 * Malformed text is read as far as it goes: JSON.parse reports it.
 */
export function jsonShapeFault(text: string, maxDepth: number): 'deep' | 'containers' | undefined {
  const maxContainers = maxJsonContainers(text.length);
  let depth = 0;
  let containers = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return undefined;
    } else if (code === OPEN_LIST || code === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'deep';
      if (++containers > maxContainers) return 'containers';
    } else if (code === CLOSE_LIST || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return undefined;
}

/** Whether `text` holds more objects and lists than maxJsonContainers allows (short texts are not read). */
export function jsonHasTooManyContainers(text: string): boolean {
  return text.length >= SHORTEST_CONTAINER_BOMB && jsonShapeFault(text, Infinity) === 'containers';
}

/**
 * JSON.parse of client text, refused with 400/12 first when it nests deeper
 * than `maxDepth` or holds more containers than maxJsonContainers allows
 * (a text too short to pass either bound is not read: JSON.parse spends
 * next to nothing on it, malformed or not); `malformed` builds the error of
 * text JSON.parse rejects.
 */
export function parseBoundedJson(text: string, malformed: () => Error, maxDepth = Infinity): unknown {
  if (text.length > Math.min(SHORTEST_CONTAINER_BOMB - 1, maxDepth)) {
    const fault = jsonShapeFault(text, maxDepth);
    if (fault === 'deep') throw tooDeepError(maxDepth);
    if (fault === 'containers') throw tooManyContainersError(text.length);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw malformed();
  }
}

function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at > 0) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/**
 * Makes a parsed JSON value safe in place: every object loses its prototype,
 * a prototype key anywhere is refused, and nesting beyond `limit` levels
 * (the value itself at `depth`) is refused, all with 400/12. Iterative, so
 * the walk itself cannot overflow the stack. Returns the value.
 */
export function adoptClientJson<T>(value: T, limit = MAX_CALL_DATA_DEPTH, depth = 1): T {
  const pending: Array<[unknown, number]> = [[value, depth]];
  while (pending.length > 0) {
    const [node, level] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (level > limit) throw tooDeepError(limit);
    if (Array.isArray(node)) {
      for (const element of node)
        if (element !== null && typeof element === 'object') pending.push([element, level + 1]);
      continue;
    }
    for (const key of Object.keys(node)) {
      assertOwnKeyName(key);
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') pending.push([child, level + 1]);
    }
    if (Object.getPrototypeOf(node) !== null) Object.setPrototypeOf(node, null);
  }
  return value;
}
