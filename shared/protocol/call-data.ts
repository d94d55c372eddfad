/**
 * Building an operation's call data from body, query string and form fields
 * (protocol.md §3.1, §3.2).
 */
import { apiError, apiErrorWithMessage } from '../errors/error-catalogue.js';
import {
  adoptClientJson,
  assertOwnKeyName,
  MAX_CALL_DATA_DEPTH,
  nullObject,
  jsonHasTooManyContainers,
  ownValue,
  parseBoundedJson,
  tooDeepError,
  tooManyContainersError,
} from './client-object.js';
import { pyTypeName } from './python-repr.js';

export const MALFORMED_BODY = (): Error => apiError('malformed_body');

const NUMERIC = /^\d+$/;

/** Textual query/form value → number, boolean or string (protocol.md §3.1). */
export function convertParameterValue(text: string): unknown {
  const withoutOneDot = text.replace('.', '');
  if (withoutOneDot.length > 0 && NUMERIC.test(withoutOneDot))
    return text.includes('.') ? Number.parseFloat(text) : Number(text);
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  return text;
}

/**
 * Merges `k=v` parameters over `target`: dotted names nest, repeated names or
 * a `[]` suffix make lists. Every path segment is checked before anything is
 * written, and new levels are null-prototype objects, so no name reaches a
 * prototype (docs/protocol.md, "Hostile call data").
 */
export function mergeParameters(target: Record<string, unknown>, params: URLSearchParams): Record<string, unknown> {
  const grouped = new Map<string, { values: string[]; forceList: boolean }>();
  for (const [rawName, value] of params) {
    const forceList = rawName.endsWith('[]');
    const name = forceList ? rawName.slice(0, -2) : rawName;
    const entry = grouped.get(name) ?? { values: [], forceList: false };
    entry.values.push(value);
    entry.forceList ||= forceList;
    grouped.set(name, entry);
  }
  for (const [name, { values, forceList }] of grouped) {
    const converted = values.map(convertParameterValue);
    const isList = forceList || converted.length > 1;
    const pathParts = name.split('.');
    // The target is level 1; each further segment adds a level, and a list one more.
    if (pathParts.length + (isList ? 1 : 0) > MAX_CALL_DATA_DEPTH) throw tooDeepError();
    pathParts.forEach(assertOwnKeyName);
    let node = target;
    for (const part of pathParts.slice(0, -1)) {
      const next = ownValue(node, part);
      if (next === null || typeof next !== 'object' || Array.isArray(next)) node[part] = nullObject();
      node = node[part] as Record<string, unknown>;
    }
    node[pathParts[pathParts.length - 1] as string] = isList ? converted : converted[0];
  }
  return target;
}

/** Media type without parameters, lower-cased (`application/json; charset=utf-8` → `application/json`). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** The kind word of ClearML's `json lines must contain objects, found: <kind>`, from the value and its text. */
export function jsonKindName(value: unknown, text: string): string {
  if (typeof value === 'number' && /[.eE]/.test(text)) return 'float';
  return pyTypeName(value);
}

export function jsonLinesNotObject(value: unknown, text: string): Error {
  return apiErrorWithMessage(
    'json_lines_not_object',
    `json lines must contain objects, found: ${jsonKindName(value, text.trim())}`,
  );
}

export function parseJson(text: string): unknown {
  return parseBoundedJson(text, MALFORMED_BODY);
}

/**
 * Splits a JSON-lines body into objects (blank lines skipped; protocol.md §3.1 step 1).
 * The bound on objects and lists holds for the whole body: each line of `{}` is too short
 * to be counted alone, and ten million of them cost 9 s of JSON.parse calls.
 */
export function parseJsonLines(text: string): Record<string, unknown>[] {
  if (jsonHasTooManyContainers(text)) throw tooManyContainersError(text.length);
  const out: Record<string, unknown>[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line.trim() === '') continue;
    const value = parseJson(line);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw jsonLinesNotObject(value, line);
    out.push(value as Record<string, unknown>);
  }
  return out;
}

/** A parsed JSON body → the call-data object (empty and falsy bodies are `{}`; other non-objects 400/12). */
export function bodyToObject(value: unknown): Record<string, unknown> {
  if (value === null || value === false || value === 0 || value === '' || (Array.isArray(value) && value.length === 0))
    return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw apiError('validation_error', 'request body must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * Call data for a buffered request: JSON body (or form fields), then the
 * query string merged over it. JSON-lines bodies are not objects: they are
 * returned as a list and get no query merge.
 */
export function buildCallData(
  body: Buffer,
  contentType: string | undefined,
  search: string,
): Record<string, unknown> | Record<string, unknown>[] {
  const type = mediaType(contentType);
  if (contentType?.trim() === 'application/json-lines') return parseJsonLines(body.toString('utf8'));
  const query = new URLSearchParams(search);
  if (type === 'application/x-www-form-urlencoded') {
    const data = mergeParameters(nullObject(), query);
    return mergeParameters(data, new URLSearchParams(body.toString('utf8')));
  }
  return mergeParameters(jsonBodyObject(body), query);
}

/** The JSON body as a safe call-data object: depth and size checked before parsing, prototypes removed after. */
function jsonBodyObject(body: Buffer): Record<string, unknown> {
  const text = body.length === 0 ? '' : body.toString('utf8');
  if (text.trim() === '') return nullObject();
  return adoptClientJson(bodyToObject(parseBoundedJson(text, MALFORMED_BODY, MAX_CALL_DATA_DEPTH)));
}
