/**
 * JSON syntax as Python's `json.loads` accepts it: standard JSON plus the
 * literals `NaN`, `Infinity` and `-Infinity`, which the ClearML SDK writes
 * for non-finite plot values (Python's json.dumps emits them by default).
 * ClearML decides `valid_plot` with json.loads, so a plot holding them is valid.
 *
 * This only checks syntax (no values are built) and never recurses, so a
 * deeply nested multi-megabyte document cannot exhaust the stack.
 */

const OBJECT = 1;
const ARRAY = 2;

/** Whether `text` is one JSON document as Python's json.loads reads it. */
export function isPythonJson(text: string): boolean {
  return new SyntaxCheck(text).run();
}

class SyntaxCheck {
  private pos = 0;
  private readonly stack: number[] = [];

  constructor(private readonly text: string) {}

  run(): boolean {
    this.skipWhitespace();
    for (;;) {
      if (!this.value()) return false;
      const next = this.afterValue();
      if (next !== 'value') return next === 'done';
    }
  }

  /** Consumes one value, entering containers iteratively (afterValue leaves them). */
  private value(): boolean {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x22 /* " */) return this.string();
      if (c !== 0x7b /* { */ && c !== 0x5b /* [ */) return this.scalar();
      const isObject = c === 0x7b;
      this.pos++;
      this.skipWhitespace();
      if (this.text.charCodeAt(this.pos) === (isObject ? 0x7d : 0x5d) /* } or ] */) {
        this.pos++;
        return true;
      }
      this.stack.push(isObject ? OBJECT : ARRAY);
      if (isObject && !this.memberKey()) return false;
    }
  }

  /** After a complete value: closes containers and consumes separators; 'value' when another value follows. */
  private afterValue(): 'value' | 'done' | 'error' {
    for (;;) {
      this.skipWhitespace();
      const top = this.stack[this.stack.length - 1];
      if (top === undefined) return this.pos === this.text.length ? 'done' : 'error';
      const c = this.text.charCodeAt(this.pos);
      if (c === 0x2c /* , */) {
        this.pos++;
        this.skipWhitespace();
        if (top === OBJECT && !this.memberKey()) return 'error';
        return 'value';
      }
      if ((top === OBJECT && c === 0x7d) || (top === ARRAY && c === 0x5d)) {
        this.pos++;
        this.stack.pop();
        continue;
      }
      return 'error';
    }
  }

  private memberKey(): boolean {
    if (this.text.charCodeAt(this.pos) !== 0x22 || !this.string()) return false;
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) return false;
    this.pos++;
    this.skipWhitespace();
    return true;
  }

  private string(): boolean {
    const { text } = this;
    let i = this.pos + 1;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c /* \ */) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return false;
        i += 2;
        continue;
      }
      i++;
    }
    return false;
  }

  private scalar(): boolean {
    SCALAR.lastIndex = this.pos;
    const match = SCALAR.exec(this.text);
    if (match === null) return false;
    this.pos += match[0].length;
    return true;
  }

  private skipWhitespace(): void {
    const { text } = this;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      i++;
    }
    this.pos = i;
  }
}

const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity/y;
