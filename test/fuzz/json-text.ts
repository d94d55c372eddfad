/**
 * JSON text with pieces no JSON value can express: number tokens beyond
 * double precision or range (`9223372036854775808`, `1e999`, `-0`), nesting
 * deeper than a recursive serialiser survives, and raw fragments (broken
 * JSON). Generators build trees of plain values and these markers; the
 * sender writes them with `toJsonText`, iteratively.
 */

/** A fragment written verbatim (a number token, broken JSON, a deep nest). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object whose keys may repeat or be `__proto__` (JSON.parse makes it an own property). */
export class KeyedObject {
  constructor(readonly entries: ReadonlyArray<readonly [string, JsonTree]>) {}
}

export type JsonTree =
  null | boolean | number | string | RawJson | KeyedObject | JsonTree[] | { [key: string]: JsonTree };

/** `depth` nested arrays (or objects) around `inner`, written without recursion. */
export function deepNest(depth: number, kind: 'array' | 'object', inner = '1'): RawJson {
  if (kind === 'array') return new RawJson(`${'['.repeat(depth)}${inner}${']'.repeat(depth)}`);
  return new RawJson(`${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`);
}

/** Punctuation pushed on the serialiser's stack (a class: a generated object can never be mistaken for it). */
class Punct {
  constructor(readonly text: string) {}
}

/**
 * Serialises a tree (JSON.stringify for strings, so lone surrogates become
 * `\udXXX` escapes). Text beyond `maxLength` is cut off: a generated list of
 * 10,000 items each holding a 70,000-character string would not fit in a JS
 * string, and anything far over the body limit is refused unread anyway.
 */
export function toJsonText(tree: JsonTree, maxLength = 64 * 1024 * 1024): string {
  const out: string[] = [];
  let length = 0;
  // An explicit stack: generated trees can be deep, and the fuzzer must not overflow its own stack.
  const stack: Array<JsonTree | Punct> = [tree];
  while (stack.length > 0) {
    if (length > maxLength) break;
    const item = stack.pop()!;
    const before = out.length;
    if (item instanceof Punct || item instanceof RawJson) out.push(item.text);
    else if (item === null || typeof item === 'boolean' || typeof item === 'string') out.push(JSON.stringify(item));
    else if (typeof item === 'number') out.push(Number.isFinite(item) ? JSON.stringify(item) : 'null');
    else if (Array.isArray(item)) {
      out.push('[');
      stack.push(new Punct(']'));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]!);
        if (i > 0) stack.push(new Punct(','));
      }
    } else {
      const entries = item instanceof KeyedObject ? item.entries : Object.entries(item);
      out.push('{');
      stack.push(new Punct('}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, value] = entries[i]!;
        stack.push(value);
        stack.push(new Punct(`${JSON.stringify(key)}:`));
        if (i > 0) stack.push(new Punct(','));
      }
    }
    for (let i = before; i < out.length; i++) length += out[i]!.length;
  }
  return out.join('').slice(0, maxLength + 1);
}
