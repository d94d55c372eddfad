/**
 * Line rendering of events.download_task_log (events.md §6.2): the `text`
 * form driven by `line_format`, validated the way ClearML validates it
 * (Python str.format syntax, reduced to plain `{name}` placeholders), and
 * the `json` form.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { trimEndChar } from '../../../shared/text/trim-char.js';

export const LOG_LINE_FIELDS = ['asctime', 'timestamp', 'level', 'worker', 'msg'] as const;
export type LogLineField = (typeof LOG_LINE_FIELDS)[number];
export const DEFAULT_LINE_FORMAT = '{asctime} {worker} {level} {msg}';

export type LogLineType = 'json' | 'text';

/** `line_type`: `json` in any case is json, anything else text (ClearML's rule); absent is json. */
export function logLineTypeOf(value: string | null | undefined): LogLineType {
  return value === undefined || value === null || value.toLowerCase() === 'json' ? 'json' : 'text';
}

/** The stored log event fields a text line can show. */
export interface LogLineEvent {
  readonly timestamp?: number;
  readonly level?: string;
  readonly worker?: string;
  readonly msg?: string;
}

/** Renders one event as one line, `\n` included. */
export type LogLineFormatter = (event: LogLineEvent) => string;

interface ParsedFormat {
  readonly literals: readonly string[];
  /** Placeholder names; literals[i] precedes names[i], the last literal follows the last name. */
  readonly names: readonly string[];
}

class LineFormatSyntaxError extends Error {}

/**
 * Validates `line_format` and compiles it. Throws the contract's ApiError:
 * 400/11 when empty, 400/16 `invalid line format` for any brace use other
 * than `{{`, `}}` and `{name}`, 400/16 `undefined placeholders` for names
 * outside LOG_LINE_FIELDS. Syntax errors take precedence over unknown names,
 * as in ClearML.
 */
export function compileLineFormat(format: string): LogLineFormatter {
  if (format === '') throw apiError('missing_required_fields', 'line_format is required for plain text lines');
  let parsed: ParsedFormat;
  try {
    parsed = parseFormat(trimEndChar(format, '\n'));
  } catch (error) {
    if (error instanceof LineFormatSyntaxError)
      throw apiError('invalid_fields', 'invalid line format', { error: error.message });
    throw error;
  }
  const allowed = new Set<string>(LOG_LINE_FIELDS);
  const undefinedNames = [...new Set(parsed.names.filter((name) => !allowed.has(name)))];
  if (undefinedNames.length > 0) {
    throw apiError('invalid_fields', 'undefined placeholders in line format', { placeholders: undefinedNames });
  }
  return formatterOf(parsed);
}

type Part = { readonly literal: string } | { readonly field: LogLineField };

function formatterOf({ literals, names }: ParsedFormat): LogLineFormatter {
  const parts: Part[] = [];
  names.forEach((name, i) => {
    if (literals[i]) parts.push({ literal: literals[i]! });
    parts.push({ field: name as LogLineField });
  });
  parts.push({ literal: `${literals[names.length]}\n` });
  return (event) => {
    let line = '';
    for (const part of parts) line += 'literal' in part ? part.literal : fieldText(event, part.field);
    return line;
  };
}

// ClearML prints the raw epoch-ms number for asctime; timestamp is the same value.
function fieldText(event: LogLineEvent, field: LogLineField): string {
  const value = field === 'asctime' || field === 'timestamp' ? event.timestamp : event[field];
  return value === undefined || value === null ? '' : String(value);
}

/** Python's str.format grammar, reporting its error texts where Python has one. */
function parseFormat(format: string): ParsedFormat {
  const literals: string[] = [];
  const names: string[] = [];
  let literal = '';
  let i = 0;
  while (i < format.length) {
    const c = format[i]!;
    if (c !== '{' && c !== '}') {
      literal += c;
      i++;
      continue;
    }
    const next = format[i + 1];
    if (next === c) {
      literal += c;
      i += 2;
      continue;
    }
    if (c === '}') throw new LineFormatSyntaxError("Single '}' encountered in format string");
    if (next === undefined) throw new LineFormatSyntaxError("Single '{' encountered in format string");
    const end = matchingBrace(format, i);
    names.push(placeholderName(format.slice(i + 1, end)));
    literals.push(literal);
    literal = '';
    i = end + 1;
  }
  literals.push(literal);
  return { literals, names };
}

function matchingBrace(format: string, open: number): number {
  let depth = 0;
  for (let j = open; j < format.length; j++) {
    if (format[j] === '{') depth++;
    else if (format[j] === '}' && --depth === 0) return j;
  }
  throw new LineFormatSyntaxError("expected '}' before end of string");
}

function placeholderName(field: string): string {
  const nameEnd = field.search(/[!:]/);
  const name = nameEnd === -1 ? field : field.slice(0, nameEnd);
  if (name.includes('{')) throw new LineFormatSyntaxError("unexpected '{' in field name");
  if (name === '' || /^\d+$/.test(name)) {
    throw new LineFormatSyntaxError(
      `Replacement index ${name === '' ? 0 : Number(name)} out of range for positional args tuple`,
    );
  }
  if (nameEnd !== -1) {
    const kind = field[nameEnd] === '!' ? 'conversions' : 'format specifications';
    throw new LineFormatSyntaxError(`${kind} are not supported: {${field}}`);
  }
  if (/[.[]/.test(name)) throw new LineFormatSyntaxError(`attribute and index lookups are not supported: {${field}}`);
  return name;
}

/**
 * The json line: the stored log event without `type` and `task`, with
 * `timestamp` renamed to `asctime` (placed last, as ClearML does), as
 * compact JSON followed by `\n`.
 */
export function jsonLogLine(event: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(event).filter(([key]) => key !== 'type' && key !== 'task' && key !== 'timestamp');
  if (event.timestamp !== undefined) entries.push(['asctime', event.timestamp]);
  return `${JSON.stringify(Object.fromEntries(entries))}\n`;
}
