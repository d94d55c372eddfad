/**
 * Values keyed by one or two ASCII strings, found from where those strings
 * sit in a line's bytes and a hash of them, without making the strings: an
 * SDK batch names a few tasks and series thousands of times, and a string
 * per name and line is what the fused path of plain lines does without.
 */
import { ByteLiteral, sameBytes } from './byte-literal.js';

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
