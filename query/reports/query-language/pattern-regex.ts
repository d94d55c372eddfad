/**
 * Regular-expression conditions (reports.md §4.4): a Python-dialect pattern
 * becomes a matcher that cannot stall the process. Patterns without
 * backreferences or lookaround run on re2js (linear time); the rest run as
 * JavaScript RegExp inside the vm sandbox under a per-query time budget.
 */
import { RE2JS } from 're2js';
import { apiError, type ApiError } from '../../../shared/errors/error-catalogue.js';
import { optionalString } from './query-errors.js';
import { PatternSyntaxError, translatePythonPattern } from './python-regex-translate.js';
import { RegexBudget, RegexTimeout, SandboxedMatcher } from './sandboxed-regex.js';
import type { Condition, StoredRecord } from './types.js';

export { RegexBudget, RegexTimeout };

export interface TextMatcher {
  /** Unanchored search. */
  test(text: string): boolean;
  /** Present when per-call evaluation is costly: evaluate a batch up front. */
  prime?(texts: Iterable<string>): void;
}

export function malformedRegex(err: string): ApiError {
  return apiError('malformed_regex', undefined, [['err', err]]);
}

/** 400/21 for a pattern whose sandboxed evaluation exhausted the query's budget. */
export function tooExpensiveRegex(timeout: RegexTimeout): ApiError {
  return apiError('malformed_regex', 'pattern too expensive', [['err', timeout.message]]);
}

const RE2_PREFIX = /^error parsing regexp: /;
const LITERAL = /^[^.^$*+?{}[\]\\|()]*$/;
/** Longest literal searched with RegExp: its worst case is O(text × length), so the length stays small. */
const MAX_FAST_LITERAL = 32;

/** A pattern with no metacharacter at all, short enough to search natively. */
function isShortLiteral(pattern: string): boolean {
  return pattern.length <= MAX_FAST_LITERAL && LITERAL.test(pattern);
}

/** Compiles a Python-dialect pattern; malformed or unsupported → 400/21 `Malformed regular expression: err=…`. */
export function compilePattern(
  pattern: string,
  options: { caseInsensitive: boolean; budget: RegexBudget },
): TextMatcher {
  if (isShortLiteral(pattern)) {
    // Same matches as RE2 (`u` mode folds case like RE2 does), ~10× faster for case-insensitive search.
    const re = new RegExp(pattern, options.caseInsensitive ? 'iu' : 'u');
    return { test: (text) => re.test(text) };
  }
  let translated;
  try {
    translated = translatePythonPattern(pattern, options.caseInsensitive);
  } catch (error) {
    if (error instanceof PatternSyntaxError) throw malformedRegex(error.message);
    throw error;
  }
  if (!translated.needsBacktracking) {
    try {
      const re = RE2JS.compile(translated.re2);
      return { test: (text) => re.test(text) };
    } catch (error) {
      throw malformedRegex(String((error as Error).message).replace(RE2_PREFIX, ''));
    }
  }
  let re: RegExp;
  try {
    re = new RegExp(translated.js, translated.jsFlags);
  } catch (error) {
    throw malformedRegex((error as Error).message);
  }
  const sandboxed = new SandboxedMatcher(re, options.budget);
  return {
    test: (text) => guard(() => sandboxed.test(text)),
    prime: (texts) => guard(() => sandboxed.prime(texts)),
  };
}

function guard<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof RegexTimeout) throw tooExpensiveRegex(error);
    throw error;
  }
}

/**
 * A `name` / `comment` / `report` condition: case-sensitive search in the
 * field; empty pattern = no condition; records lacking the field never match.
 */
export function compilePatternCondition(field: string, value: unknown, budget: RegexBudget): Condition | undefined {
  const pattern = optionalString(value);
  if (pattern === undefined || pattern === '') return undefined;
  const matcher = compilePattern(pattern, { caseInsensitive: false, budget });
  const text = (record: StoredRecord) => record[field];
  const condition: Condition = {
    test(record) {
      const v = text(record);
      return typeof v === 'string' && matcher.test(v);
    },
  };
  if (matcher.prime) {
    const prime = matcher.prime;
    condition.prime = (records) => prime(stringValues(records, text));
  }
  return condition;
}

function* stringValues(records: readonly StoredRecord[], read: (r: StoredRecord) => unknown): Iterable<string> {
  for (const r of records) {
    const v = read(r);
    if (typeof v === 'string') yield v;
  }
}
