/**
 * Joins two Prometheus text expositions into one scrape: the families of
 * `extra` (another thread's registry) are appended, except those the first
 * already has. Both threads of an `all` process with a writer thread export
 * a few families (the event streams' fill); a scrape must not carry one
 * series twice, and both threads read the same JetStream values.
 */

/** The metric family names of an exposition, from its `# HELP` / `# TYPE` lines. */
function familyNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/^# (?:HELP|TYPE) (\S+)/gm)) names.add(match[1]!);
  return names;
}

export function mergeExpositions(first: string, extra: string): string {
  const taken = familyNames(first);
  const kept: string[] = [];
  let skipping = false;
  for (const line of extra.split('\n')) {
    const header = /^# (?:HELP|TYPE) (\S+)/.exec(line);
    if (header) skipping = taken.has(header[1]!);
    if (!skipping && line !== '') kept.push(line);
  }
  if (kept.length === 0) return first;
  return `${first.endsWith('\n') || first === '' ? first : `${first}\n`}${kept.join('\n')}\n`;
}
