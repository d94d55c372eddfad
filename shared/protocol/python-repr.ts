/**
 * Renders JSON values the way Python's repr() does, because ClearML's
 * validation messages echo received values in that form (`['t1', 't2']`,
 * `{'a': 1}`, `True`, `None`). A client value can be any size or depth, so
 * the rendering stops at MAX_ECHO_CHARS characters (ending in `...`) and
 * never walks deeper than MAX_ECHO_DEPTH levels: an error message is never
 * larger than the mistake it reports needs.
 */
export const MAX_ECHO_CHARS = 8 * 1024;
const MAX_ECHO_DEPTH = 32;
const ELLIPSIS = '...';

/**
 * The first `limit` UTF-16 code units of `text`, one fewer when the cut would
 * split a surrogate pair: a lone surrogate is not text (grpc-js throws on it
 * in a status message, and it is not valid UTF-8 anywhere else either).
 */
export function headOf(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const last = text.charCodeAt(limit - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit);
}

/** Text written up to a limit; once full, further writes are dropped. */
class BoundedText {
  private readonly parts: string[] = [];
  private length = 0;
  full = false;

  constructor(private readonly limit: number) {}

  add(text: string): void {
    if (this.full) return;
    const room = this.limit - this.length;
    if (text.length > room) {
      this.parts.push(headOf(text, room));
      this.full = true;
      return;
    }
    this.parts.push(text);
    this.length += text.length;
  }

  /** Ends the text here (what follows is not shown). */
  cut(): void {
    this.full = true;
  }

  toString(): string {
    return this.parts.join('') + (this.full ? ELLIPSIS : '');
  }
}

export function pyRepr(value: unknown, limit = MAX_ECHO_CHARS): string {
  const out = new BoundedText(limit);
  writeRepr(value, out, 0, limit);
  return out.toString();
}

/** A client string echoed verbatim (not as repr), cut at MAX_ECHO_CHARS. */
export function echoText(text: string, limit = MAX_ECHO_CHARS): string {
  return text.length > limit ? headOf(text, limit) + ELLIPSIS : text;
}

function writeRepr(value: unknown, out: BoundedText, depth: number, limit: number): void {
  if (out.full) return;
  if (value === null || value === undefined) return out.add('None');
  if (value === true) return out.add('True');
  if (value === false) return out.add('False');
  if (typeof value === 'number')
    return out.add(Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pyFloat(value));
  // Only the part that can be shown is escaped: one more character than fits marks the cut.
  if (typeof value === 'string') return out.add(pyString(headOf(value, limit + 1)));
  if (typeof value !== 'object') return out.add(String(value));
  if (depth >= MAX_ECHO_DEPTH) return out.cut();
  const isList = Array.isArray(value);
  out.add(isList ? '[' : '{');
  let first = true;
  for (const key of isList ? value.keys() : Object.keys(value)) {
    if (out.full) return;
    if (!first) out.add(', ');
    first = false;
    if (!isList) out.add(`${pyString(key as string)}: `);
    writeRepr((value as Record<string | number, unknown>)[key], out, depth + 1, limit);
  }
  out.add(isList ? ']' : '}');
}

function pyFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const text = String(value);
  return text.includes('.') || text.includes('e') ? text : `${text}.0`;
}

function pyString(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  const escaped = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

/** Python's name for the JSON kind of a value (`json lines must contain objects, found: <kind>`). */
export function pyTypeName(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return 'str';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float';
    default:
      return 'dict';
  }
}
