/**
 * The get_task_log search extension (docs/events-read.md): a server-side
 * filter over `msg`, by substring or by regular expression, so that a search
 * covers the whole log rather than the page a client has loaded. Regular
 * expressions run on re2js, a linear-time RE2 engine: no pattern can
 * backtrack catastrophically, whatever the log holds.
 */
import { RE2JS } from 're2js';
import { apiError } from '../../../shared/errors/error-catalogue.js';

export interface LogSearch {
  /** Substring, or RE2 pattern when `regex`. Empty or absent: no search. */
  readonly text?: string | null;
  readonly regex?: boolean;
  readonly ignoreCase?: boolean;
}

export interface MessageMatcher {
  (msg: unknown): boolean;
  /**
   * A cheap test on the stored event's JSON text: false means the event
   * cannot match, so it need not be parsed. Absent when no such test is sound.
   */
  mayMatchJson?: (json: string) => boolean;
}

// Characters JSON.stringify escapes (`u` mode: only lone surrogates match the
// range): a needle without them appears verbatim in the JSON of a msg holding it.
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/u;

/** Longer patterns are refused: RE2 time is linear in text × program size. */
export const MAX_SEARCH_LENGTH = 1000;

/** The matcher, or undefined when there is nothing to search. 400/12 when too long, 400/21 when the pattern does not compile. */
export function compileLogSearch(search: LogSearch): MessageMatcher | undefined {
  const text = search.text;
  if (text === undefined || text === null || text === '') return undefined;
  if (text.length > MAX_SEARCH_LENGTH) {
    throw apiError('validation_error', `search is longer than ${MAX_SEARCH_LENGTH} characters`);
  }
  if (search.regex) {
    let re: RE2JS;
    try {
      re = RE2JS.compile(text, search.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (error) {
      throw apiError('malformed_regex', undefined, [
        ['err', String((error as Error).message).replace(/^error parsing regexp: /, '')],
      ]);
    }
    return (msg) => typeof msg === 'string' && re.test(msg);
  }
  const verbatim = !JSON_ESCAPED.test(text);
  if (search.ignoreCase) {
    const needle = text.toLowerCase();
    const matcher: MessageMatcher = (msg) => typeof msg === 'string' && msg.toLowerCase().includes(needle);
    // Lower-casing maps no character to an escaped one, so the same holds after it.
    if (verbatim) matcher.mayMatchJson = (json) => json.toLowerCase().includes(needle);
    return matcher;
  }
  const matcher: MessageMatcher = (msg) => typeof msg === 'string' && msg.includes(text);
  if (verbatim) matcher.mayMatchJson = (json) => json.includes(text);
  return matcher;
}
