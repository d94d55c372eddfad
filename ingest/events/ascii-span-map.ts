/**
 * Values keyed by one or two ASCII strings, found from where those strings
 * sit in a line's bytes and a hash of them, without making the strings: an
 * SDK batch names a few tasks and series thousands of times, and a string
 * per name and line is what the fused path of plain lines does without.
 */
import { ByteLiteral, sameBytes } from './byte-literal.js';

/**
 * The hash readers give `get` and `set`: FNV-1a over a string's bytes
 * (`SPAN_HASH_SEED`, then `Math.imul(hash ^ byte, SPAN_HASH_PRIME)` a byte,
 * inline in the reader's own scan), kept a small integer so that Map keys
 * stay fast. The same for every reader, so that any finds what another set.
 */
export const SPAN_HASH_SEED = 0x811c9dc5 | 0;
export const SPAN_HASH_PRIME = 0x01000193;
const SMALL = 0x3fffffff;
export const smallHash = (hash: number): number => hash & SMALL;
/** The hash of a pair (a series' metric and variant) from its strings' small hashes. */
export const pairHash = (first: number, second: number): number => (Math.imul(first, 31) ^ second) & SMALL;

interface Entry<V> {
  first: ByteLiteral;
  second: ByteLiteral;
  value: V;
  /** another entry of the same hash */
  next: Entry<V> | undefined;
}

export class AsciiSpanMap<V> {
  private readonly entries = new Map<number, Entry<V>>();

  /** The value of the strings at `bytes[firstStart, firstEnd)` and `bytes[secondStart, secondEnd)` (an empty span for a single key), whose hash is `hash`. */
  get(
    bytes: Buffer,
    firstStart: number,
    firstEnd: number,
    secondStart: number,
    secondEnd: number,
    hash: number,
  ): V | undefined {
    for (let entry = this.entries.get(hash); entry !== undefined; entry = entry.next) {
      if (sameBytes(bytes, firstStart, firstEnd, entry.first) && sameBytes(bytes, secondStart, secondEnd, entry.second))
        return entry.value;
    }
    return undefined;
  }

  /** `hash` is the one `get` will be given for these strings' bytes. */
  set(first: string, second: string, hash: number, value: V): void {
    this.entries.set(hash, {
      first: new ByteLiteral(first),
      second: new ByteLiteral(second),
      value,
      next: this.entries.get(hash),
    });
  }
}
