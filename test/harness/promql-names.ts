/**
 * The metric names a PromQL expression reads: identifiers that are not
 * functions, keywords, label names (inside `{}` or after by/without/on/
 * ignoring/group_*), durations or strings.
 */
const KEYWORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  const identifier = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;
  for (let match = identifier.exec(stripped); match; match = identifier.exec(stripped)) {
    const word = match[0];
    const before = stripped[match.index - 1];
    if (before !== undefined && /[0-9.$]/.test(before)) continue; // part of a number (1e9) or a variable
    const after = stripped.slice(match.index + word.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(word.toLowerCase())) continue;
    names.add(word);
  }
  return [...names];
}
