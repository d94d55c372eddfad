import { describe, expect, it } from 'vitest';
import { compilePattern, compilePatternCondition, RegexBudget } from './pattern-regex.js';
import { translatePythonPattern } from './python-regex-translate.js';
import { errorOf } from './test-records.js';

const matcher = (pattern: string, caseInsensitive = false) =>
  compilePattern(pattern, { caseInsensitive, budget: new RegexBudget() });
const search = (pattern: string, text: string, caseInsensitive = false) => matcher(pattern, caseInsensitive).test(text);

describe('§4.4 translations', () => {
  it('(?P<name>…) becomes a named group on both engines', () => {
    const t = translatePythonPattern('(?P<year>\\d{4})-x', false);
    expect(t).toMatchObject({ re2: '(?P<year>\\d{4})-x', js: '(?<year>\\d{4})-x', needsBacktracking: false });
    expect(search('(?P<year>\\d{4})-x', 'in 2024-x')).toBe(true);
  });

  it('(?P=name) becomes \\k<name> and runs on the sandboxed engine', () => {
    const t = translatePythonPattern('(?P<w>ab)-(?P=w)', false);
    expect(t.js).toBe('(?<w>ab)-(?:\\k<w>)');
    expect(t.needsBacktracking).toBe(true);
    expect(search('(?P<w>ab)-(?P=w)', 'xx ab-ab')).toBe(true);
    expect(search('(?P<w>ab)-(?P=w)', 'xx ab-ba')).toBe(false);
  });

  it('numeric backreferences', () => {
    expect(search('(\\w)\\1', 'hello')).toBe(true);
    expect(search('(\\w)\\1', 'helo')).toBe(false);
  });

  it.each([
    ['(?i)weekly', 'WEEKLY report', true],
    ['weekly', 'WEEKLY report', false],
    ['(?m)^b$', 'a\nb\nc', true],
    ['^b$', 'a\nb\nc', false],
    ['(?s)a.b', 'a\nb', true],
    ['a.b', 'a\nb', false],
    ['(?is)A.B', 'a\nb', true],
    ['(?i)(?m)^B', 'a\nb', true],
  ])('leading inline flags: %j on %j → %s', (pattern, text, expected) => {
    expect(search(pattern, text)).toBe(expected);
  });

  it('leading flags go inline for RE2 and into RegExp flags for JavaScript', () => {
    expect(translatePythonPattern('(?i)a', false).re2).toBe('(?i)a');
    expect(translatePythonPattern('(?i)(a)\\1', false).jsFlags).toBe('iu');
  });

  it('lookaround runs on the sandboxed engine', () => {
    expect(translatePythonPattern('foo(?=bar)', false).needsBacktracking).toBe(true);
    expect(search('foo(?=bar)', 'foobar')).toBe(true);
    expect(search('foo(?!bar)', 'foobar')).toBe(false);
    expect(search('(?<=x)y', 'xy')).toBe(true);
    expect(search('(?<!x)y', 'xy')).toBe(false);
  });

  it.each([
    ['a{,2}b', 'aab', true],
    ['x{,2}', 'x{,2}', true],
    ['a{2', 'a{2', true],
    ['a}', 'a}', true],
    ['[]a]', ']', true],
    ['[^]a]', ']', false],
    ['\\x41', 'A', true],
    ['\\u00e9', 'é', true],
    ['\\U0001F600', '😀', true],
    ['\\101', 'A', true],
    ['\\0', '\0', true],
    ['a\\Z', 'a', true],
    ['a\\Z', 'a\n', false],
    ['a$', 'a\n', true],
    ['\\Aab', 'ab', true],
    ['[\\b]', '\b', true],
    ["\\-\\#\\ \\'", "-# '", true],
    ['a(?#comment)b', 'ab', true],
    ['(?u:a)', 'a', true],
    ['(?i:a)b', 'Ab', true],
    ['(?i:a)b', 'AB', false],
    ['(?s:a.)b', 'a\nb', true],
    ['\\w+', 'héllo', true],
    ['(?<name>x)', 'x', true],
    ['[a\\-z]', '-', true],
    ['[\\]\\[]+', '][', true],
    ['a\\/b', 'a/b', true],
    ['\\{\\}\\(\\)\\.\\*', '{}().*', true],
    ['K', '\u212A', false],
    ['(?i)k', '\u212A', true],
  ])('Python construct %j on %j → %s', (pattern, text, expected) => {
    expect(search(pattern, text)).toBe(expected);
    // An empty lookahead forces the sandboxed JavaScript engine: it must agree.
    if (!pattern.includes('(?i:')) expect(search(`${pattern}(?=)`, text)).toBe(expected);
  });

  it('sandboxed translations keep Python semantics of ^, $ and .', () => {
    expect(search('(a)\\1$', 'aa\n')).toBe(true);
    expect(search('^(a)\\1', 'b\naa')).toBe(false);
    expect(search('(?m)^(a)\\1', 'b\naa')).toBe(true);
    expect(search('(a).\\1', 'a\ra')).toBe(true);
    expect(search('(a).\\1', 'a\na')).toBe(false);
    expect(search('(?s)(a).\\1', 'a\na')).toBe(true);
  });

  it('is case-insensitive on request (multi-field patterns)', () => {
    expect(search('weekly', 'Weekly', true)).toBe(true);
    expect(search('(w)\\1', 'wW', true)).toBe(true);
  });
});

describe('§4.4 malformed and unsupported patterns (400/21)', () => {
  it.each([
    ['(abc', 'missing ), unterminated subpattern at position 0'],
    ['ab)', 'unbalanced parenthesis at position 2'],
    ['[abc', 'unterminated character set at position 0'],
    ['(?x)a b', 'verbose flag (?x) is not supported'],
    ['a(?i)b', 'global flags not at the start of the expression at position 1'],
    ['\\q', 'bad escape \\q at position 0'],
    ['a\\', 'bad escape (end of pattern) at position 1'],
    ['(a)\\2', 'invalid group reference 2 at position 4'],
    ['(a\\1)', 'cannot refer to an open group at position 2'],
    ['(?P=nope)', "unknown group name 'nope' at position 4"],
    ['(?P<a>x)(?P<a>y)', "redefinition of group name 'a' as group 2; was group 1 at position 12"],
    ['(?Px)', 'unknown extension ?Px at position 1'],
    ['(?(1)a|b)', 'conditional groups are not supported (position 0)'],
    ['(?>a)', 'atomic groups are not supported (position 0)'],
    ['a{3,1}', 'min repeat greater than max repeat at position 1'],
    ['\\x4', 'incomplete escape \\x4 at position 0'],
    ['(?i:(a))\\1', 'scoped case flags (?i:...) cannot be combined with backreferences or lookaround'],
  ])('%j', (pattern, err) => {
    expect(errorOf(() => matcher(pattern))).toEqual({
      code: '400/21',
      message: `Malformed regular expression: err=${err}`,
    });
  });

  it.each([['*a'], ['a**'], ['a{1001}'], ['(?<=a+)(b)\\1x**']])('engine errors are appended: %j', (pattern) => {
    const { code, message } = errorOf(() => matcher(pattern));
    expect(code).toBe('400/21');
    expect(message).toMatch(/^Malformed regular expression: err=\S/);
  });
});

describe('catastrophic backtracking', () => {
  const hostile = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa!';

  it('runs (a+)+$ on the linear-time engine', () => {
    const started = performance.now();
    expect(search('(a+)+$', hostile)).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('stops a hostile backtracking pattern within the budget with 400/21', () => {
    const budget = new RegexBudget(50);
    const m = compilePattern('(a+)+\\1$', { caseInsensitive: false, budget });
    const started = performance.now();
    const { code, message } = errorOf(() => m.test(hostile + 'aaaaaaaaaa'));
    expect(performance.now() - started).toBeLessThan(200);
    expect(code).toBe('400/21');
    expect(message).toBe('Malformed regular expression (pattern too expensive): err=matching took longer than 50 ms');
  });

  it('shares one budget across calls of a query', () => {
    const budget = new RegexBudget(50);
    const m = compilePattern('(a+)+\\1$', { caseInsensitive: false, budget });
    errorOf(() => m.test(hostile + 'aaaaaaaaaa'));
    const started = performance.now();
    expect(errorOf(() => m.test('other')).code).toBe('400/21');
    expect(performance.now() - started).toBeLessThan(20);
  });

  it('primes a batch in one sandbox call', () => {
    const m = matcher('(\\d)\\1');
    const texts = Array.from({ length: 10_000 }, (_, i) => `name ${i}`);
    const started = performance.now();
    m.prime!(texts);
    const count = texts.filter((t) => m.test(t)).length;
    expect(count).toBe(texts.filter((t) => /(\d)\1/.test(t)).length);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('pattern conditions (name, comment, report)', () => {
  const budget = new RegexBudget();
  it('searches case-sensitively; records lacking the field never match', () => {
    const c = compilePatternCondition('name', 'Week', budget)!;
    expect(c.test({ name: 'Weekly' })).toBe(true);
    expect(c.test({ name: 'weekly' })).toBe(false);
    expect(c.test({})).toBe(false);
  });

  it('an empty or absent pattern is no condition', () => {
    expect(compilePatternCondition('name', '', budget)).toBeUndefined();
    expect(compilePatternCondition('name', null, budget)).toBeUndefined();
  });

  it('a non-string pattern is 400/12', () => {
    expect(errorOf(() => compilePatternCondition('name', 5, budget))).toEqual({
      code: '400/12',
      message: 'Validation error (value is wrong, expected type "str" 5)',
    });
  });

  it('re2js matches 10k names in a few ms', () => {
    const names = Array.from({ length: 10_000 }, (_, i) => `Weekly report number ${i} of team ${i % 7}`);
    const m = matcher('team [3-5]$');
    for (const n of names) m.test(n); // warm-up (JIT)
    const started = performance.now();
    const count = names.filter((n) => m.test(n)).length;
    const elapsed = performance.now() - started;
    expect(count).toBe(names.filter((_, i) => [3, 4, 5].includes(i % 7)).length);
    expect(elapsed).toBeLessThan(100);
    console.info(`re2js: 10k names in ${elapsed.toFixed(1)} ms`);
  });
});
