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
 * Whether JSON text nests lists and objects deeper than `limit`, read from
 * its bytes before it is parsed: a body of `[` repeated millions of times
 * would otherwise cost seconds and gigabytes inside JSON.parse. Brackets in
 * strings are skipped (the closing quote is found with indexOf); UTF-8
 * continuation bytes never equal an ASCII byte, so bytes can be read as is.
 * Malformed text answers false: JSON.parse reports it.
 */
export function jsonNestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === QUOTE) {
      i = closingQuote(bytes, i);
      if (i < 0) return false;
    } else if (byte === OPEN_LIST || byte === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_LIST || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

function closingQuote(bytes: Uint8Array, open: number): number {
  let at = bytes.indexOf(QUOTE, open + 1);
  while (at > 0) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = bytes.indexOf(QUOTE, at + 1);
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
