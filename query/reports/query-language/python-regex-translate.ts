/**
 * Translates a Python-dialect regular expression (reports.md §4.4) into two
 * equivalent sources: RE2 syntax (linear-time engine, used whenever possible)
 * and JavaScript `u`-mode syntax (only needed for backreferences and
 * lookaround, which RE2 cannot do). One pass emits both so they cannot drift.
 *
 * Matching follows what ClearML's store (MongoDB, PCRE) does with the
 * pattern: `\w`, `\d`, `\b` are ASCII; `$` also matches before a final
 * newline. Syntax errors use Python's wording where we detect them ourselves.
 */

export class PatternSyntaxError extends Error {}

export interface TranslatedPattern {
  /** RE2 source; global flags are inline. */
  readonly re2: string;
  /** JavaScript source for `new RegExp(js, jsFlags)`. */
  readonly js: string;
  readonly jsFlags: string;
  /** Backreferences or lookaround: only the backtracking (JavaScript) engine can run it. */
  readonly needsBacktracking: boolean;
}

/** Characters that stay escaped when the source escaped them (`-` only inside classes, where `u` mode allows it). */
const SYNTAX_CHARS = new Set('^$\\.*+?()[]{}|/');
const CLASS_SYNTAX_CHARS = new Set([...SYNTAX_CHARS, '-']);
const OCTAL = /[0-7]/;
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };
const GROUP_NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;
const QUANTIFIER = /^\{(\d*)(?:(,)(\d*))?\}/;

interface Scope {
  readonly multiline: boolean;
  readonly dotall: boolean;
  readonly capture?: number;
  readonly start: number;
}

export function translatePythonPattern(pattern: string, caseInsensitive: boolean): TranslatedPattern {
  return new Translator(pattern, caseInsensitive).run();
}

class Translator {
  private pos = 0;
  private re2 = '';
  private js = '';
  private multiline = false;
  private dotall = false;
  private ignoreCase: boolean;
  private needsBacktracking = false;
  private scopedCaseFlag = false;
  private groupCount = 0;
  private readonly names = new Map<string, number>();
  private readonly open = new Set<number>();
  private readonly scopes: Scope[] = [];

  constructor(
    private readonly p: string,
    caseInsensitive: boolean,
  ) {
    this.ignoreCase = caseInsensitive;
  }

  run(): TranslatedPattern {
    this.leadingFlags();
    while (this.pos < this.p.length) this.atom();
    const unclosed = this.scopes.at(-1);
    if (unclosed) this.fail(`missing ), unterminated subpattern at position ${unclosed.start}`);
    if (this.needsBacktracking && this.scopedCaseFlag) {
      this.fail('scoped case flags (?i:...) cannot be combined with backreferences or lookaround');
    }
    const global = `${this.ignoreCase ? 'i' : ''}${this.multiline ? 'm' : ''}${this.dotall ? 's' : ''}`;
    return {
      re2: (global ? `(?${global})` : '') + this.re2,
      js: this.js,
      jsFlags: this.ignoreCase ? 'iu' : 'u',
      needsBacktracking: this.needsBacktracking,
    };
  }

  private fail(message: string): never {
    throw new PatternSyntaxError(message);
  }

  private emit(re2: string, js: string = re2): void {
    this.re2 += re2;
    this.js += js;
  }

  private emitCodePoint(cp: number): void {
    const hex = cp.toString(16).toUpperCase();
    this.emit(`\\x{${hex}}`, `\\u{${hex}}`);
  }

  /** Python accepts global flags only at the very start: `(?i)`, `(?ms)`, possibly repeated. */
  private leadingFlags(): void {
    for (;;) {
      const m = /^\(\?([aiLmsux]+)\)/.exec(this.p.slice(this.pos));
      if (!m) return;
      for (const flag of m[1]!) this.applyFlag(flag, true);
      this.pos += m[0].length;
    }
  }

  private applyFlag(flag: string, on: boolean): void {
    if (flag === 'x') this.fail('verbose flag (?x) is not supported');
    if (flag === 'L') this.fail("bad inline flag: cannot use 'L' flag with a str pattern");
    if (flag === 'i') this.ignoreCase = on;
    if (flag === 'm') this.multiline = on;
    if (flag === 's') this.dotall = on;
    // 'a' and 'u' change nothing here: classes are ASCII already, strings are Unicode already.
  }

  private atom(): void {
    const c = this.p[this.pos]!;
    this.pos++;
    switch (c) {
      case '\\':
        return this.escape();
      case '[':
        return this.charClass();
      case '(':
        return this.group();
      case ')':
        return this.closeGroup();
      case '{':
        return this.brace();
      case '}':
      case ']':
        return this.emit(`\\${c}`);
      case '^':
        return this.emit('^', this.multiline ? '(?<![^\\n])' : '(?<![\\s\\S])');
      case '$':
        return this.multiline ? this.emit('$', '(?![^\\n])') : this.emit('(?:\\n?\\z)', '(?=\\n?(?![\\s\\S]))');
      case '.':
        return this.emit('.', this.dotall ? '[\\s\\S]' : '[^\\n]');
      default:
        return this.emit(c);
    }
  }

  /** Python's `{m,n}` forms (`{,n}` = `{0,n}`); any other brace is a literal. */
  private brace(): void {
    const m = QUANTIFIER.exec(this.p.slice(this.pos - 1));
    if (!m || m[0] === '{}') return this.emit('\\{');
    this.pos += m[0].length - 1;
    const min = m[1] === '' ? '0' : m[1]!;
    if (m[2] === undefined) return this.emit(`{${min}}`);
    if (m[3] !== '' && Number(m[3]) < Number(min))
      this.fail(`min repeat greater than max repeat at position ${this.pos - m[0].length}`);
    this.emit(`{${min},${m[3]}}`);
  }

  private escape(): void {
    const at = this.pos - 1;
    const c = this.p[this.pos];
    if (c === undefined) this.fail(`bad escape (end of pattern) at position ${at}`);
    this.pos++;
    if ('bBdDsSwWfnrtv'.includes(c)) return this.emit(`\\${c}`);
    if (c === 'A') return this.emit('\\A', '(?<![\\s\\S])');
    if (c === 'Z') return this.emit('\\z', '(?![\\s\\S])');
    if (c === 'a') return this.emitCodePoint(7);
    if (c in HEX_LENGTH) return this.emitCodePoint(this.hexEscape(c, at));
    if (c === '0') return this.emitCodePoint(this.octalDigits(0, 2));
    if (c >= '1' && c <= '9') return this.numericEscape(c, at);
    if (/[A-Za-z]/.test(c)) this.fail(`bad escape \\${c} at position ${at}`);
    this.literal(c);
  }

  /** A literal character that the source escaped; punctuation is escaped again, anything else emitted raw. */
  private literal(c: string, inClass = false): void {
    const cp = this.p.codePointAt(this.pos - 1)!;
    if (cp > 0xffff) {
      this.pos++;
      return this.emitCodePoint(cp);
    }
    this.emit((inClass ? CLASS_SYNTAX_CHARS : SYNTAX_CHARS).has(c) ? `\\${c}` : c);
  }

  private hexEscape(kind: string, at: number): number {
    const length = HEX_LENGTH[kind]!;
    const digits = this.p.slice(this.pos, this.pos + length);
    if (!new RegExp(`^[0-9a-fA-F]{${length}}$`).test(digits))
      this.fail(`incomplete escape \\${kind}${digits} at position ${at}`);
    this.pos += length;
    const cp = Number.parseInt(digits, 16);
    if (cp > 0x10ffff) this.fail(`bad escape \\${kind}${digits} at position ${at}`);
    return cp;
  }

  private octalDigits(value: number, max: number): number {
    for (let n = 0; n < max && OCTAL.test(this.p[this.pos] ?? ''); n++) value = value * 8 + Number(this.p[this.pos++]);
    return value;
  }

  /** `\1`..`\99` are group references unless three octal digits make an octal escape. */
  private numericEscape(first: string, at: number): void {
    const rest = this.p.slice(this.pos, this.pos + 2);
    if (OCTAL.test(first) && /^[0-7]{2}$/.test(rest)) {
      const value = Number.parseInt(first + rest, 8);
      if (value > 0o377) this.fail(`octal escape value \\${first}${rest} outside of range 0-0o377 at position ${at}`);
      this.pos += 2;
      return this.emitCodePoint(value);
    }
    let digits = first;
    if (/[0-9]/.test(this.p[this.pos] ?? '')) digits += this.p[this.pos++];
    this.backReference(Number(digits), at);
  }

  private backReference(group: number, at: number, name?: string): void {
    if (group > this.groupCount) this.fail(`invalid group reference ${group} at position ${at + 1}`);
    if (this.open.has(group)) this.fail(`cannot refer to an open group at position ${at}`);
    this.needsBacktracking = true;
    this.emit('', name === undefined ? `(?:\\${group})` : `(?:\\k<${name}>)`);
  }

  private charClass(): void {
    const start = this.pos - 1;
    this.emit('[');
    if (this.p[this.pos] === '^') {
      this.emit('^');
      this.pos++;
    }
    for (let first = true; ; first = false) {
      const c = this.p[this.pos];
      if (c === undefined) this.fail(`unterminated character set at position ${start}`);
      this.pos++;
      if (c === ']' && !first) return this.emit(']');
      if (c === ']' || c === '[') this.emit(`\\${c}`);
      else if (c === '\\') this.classEscape();
      else this.emit(c);
    }
  }

  private classEscape(): void {
    const at = this.pos - 1;
    const c = this.p[this.pos];
    if (c === undefined) this.fail(`unterminated character set at position ${at}`);
    this.pos++;
    if ('dDsSwWfnrtv'.includes(c)) return this.emit(`\\${c}`);
    if (c === 'b') return this.emitCodePoint(8);
    if (c === 'a') return this.emitCodePoint(7);
    if (c in HEX_LENGTH) return this.emitCodePoint(this.hexEscape(c, at));
    if (OCTAL.test(c)) {
      const value = this.octalDigits(Number(c), 2);
      if (value > 0o377) this.fail(`octal escape value outside of range 0-0o377 at position ${at}`);
      return this.emitCodePoint(value);
    }
    if (/[A-Za-z0-9]/.test(c)) this.fail(`bad escape \\${c} at position ${at}`);
    this.literal(c, true);
  }

  private group(): void {
    const start = this.pos - 1;
    if (this.p[this.pos] !== '?') return this.openCapture(start, '(', '(');
    this.pos++;
    const rest = this.p.slice(this.pos);
    if (rest.startsWith(':')) {
      this.pos++;
      return this.openScope(start, '(?:');
    }
    if (rest.startsWith('P<') || (rest.startsWith('<') && !/^<[=!]/.test(rest))) {
      this.pos += rest.startsWith('P') ? 2 : 1;
      return this.namedGroup(start);
    }
    if (rest.startsWith('P=')) return this.namedReference(start);
    if (/^(?:[=!]|<[=!])/.test(rest)) {
      const opener = rest.startsWith('<') ? `(?${rest.slice(0, 2)}` : `(?${rest[0]}`;
      this.pos += opener.length - 2;
      this.needsBacktracking = true;
      return this.openScope(start, opener);
    }
    if (rest.startsWith('#')) {
      const end = this.p.indexOf(')', this.pos);
      if (end < 0) this.fail(`missing ), unterminated comment at position ${start}`);
      this.pos = end + 1;
      return;
    }
    if (rest.startsWith('(')) this.fail(`conditional groups are not supported (position ${start})`);
    if (rest.startsWith('>')) this.fail(`atomic groups are not supported (position ${start})`);
    const flags = /^([aiLmsux]*)(?:-([imsx]*))?([:)])/.exec(rest);
    if (!flags || (flags[1] === '' && flags[2] === undefined)) {
      this.fail(`unknown extension ?${rest.slice(0, rest.startsWith('P') ? 2 : 1)} at position ${start + 1}`);
    }
    if (flags[3] === ')') this.fail(`global flags not at the start of the expression at position ${start}`);
    this.pos += flags[0].length;
    this.scopedFlags(start, flags[1]!, flags[2] ?? '');
  }

  private scopedFlags(start: number, on: string, off: string): void {
    for (const f of on) if (off.includes(f)) this.fail(`bad inline flag: flag turned on and off at position ${start}`);
    const outer = { multiline: this.multiline, dotall: this.dotall };
    for (const f of on) this.applyScoped(f, true);
    for (const f of off) this.applyScoped(f, false);
    const keep = (s: string) => [...s].filter((f) => 'ims'.includes(f)).join('');
    const re2On = keep(on);
    const re2Off = keep(off);
    if (re2On.includes('i') || re2Off.includes('i')) this.scopedCaseFlag = true;
    const re2 = re2On || re2Off ? `(?${re2On}${re2Off ? `-${re2Off}` : ''}:` : '(?:';
    this.scopes.push({ ...outer, start });
    this.emit(re2, '(?:');
  }

  private applyScoped(flag: string, on: boolean): void {
    if (flag === 'x') this.fail('verbose flag (?x) is not supported');
    if (flag === 'L') this.fail("bad inline flag: cannot use 'L' flag with a str pattern");
    if (flag === 'm') this.multiline = on;
    if (flag === 's') this.dotall = on;
  }

  private namedGroup(start: number): void {
    const end = this.p.indexOf('>', this.pos);
    if (end < 0) this.fail(`missing >, unterminated name at position ${this.pos}`);
    const name = this.p.slice(this.pos, end);
    if (!GROUP_NAME.test(name)) this.fail(`bad character in group name '${name}' at position ${this.pos}`);
    if (this.names.has(name)) {
      this.fail(
        `redefinition of group name '${name}' as group ${this.groupCount + 1}; was group ${this.names.get(name)} at position ${this.pos}`,
      );
    }
    this.pos = end + 1;
    this.names.set(name, this.groupCount + 1);
    this.openCapture(start, `(?P<${name}>`, `(?<${name}>`);
  }

  private namedReference(start: number): void {
    const end = this.p.indexOf(')', this.pos);
    if (end < 0) this.fail(`missing ), unterminated name at position ${this.pos + 2}`);
    const name = this.p.slice(this.pos + 2, end);
    const group = this.names.get(name);
    if (group === undefined) this.fail(`unknown group name '${name}' at position ${this.pos + 2}`);
    this.pos = end + 1;
    this.backReference(group, start, name);
  }

  private openCapture(start: number, re2: string, js: string): void {
    const capture = ++this.groupCount;
    this.open.add(capture);
    this.scopes.push({ multiline: this.multiline, dotall: this.dotall, capture, start });
    this.emit(re2, js);
  }

  private openScope(start: number, opener: string): void {
    this.scopes.push({ multiline: this.multiline, dotall: this.dotall, start });
    this.emit(opener);
  }

  private closeGroup(): void {
    const scope = this.scopes.pop();
    if (!scope) this.fail(`unbalanced parenthesis at position ${this.pos - 1}`);
    if (scope.capture !== undefined) this.open.delete(scope.capture);
    this.multiline = scope.multiline;
    this.dotall = scope.dotall;
    this.emit(')');
  }
}
