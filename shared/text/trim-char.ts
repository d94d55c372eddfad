/**
 * Trimming of one repeated character at the ends of a string, by index.
 * The regular expressions it replaces (`/\/+$/`, `/\n+$/`) backtrack: on a
 * string holding a long run of the character that does not reach the end,
 * every start in the run rescans it (40,000 slashes: 3 s), and client input
 * reaches such calls (test/architecture/regex-safety.test.ts).
 */

/** `text` without the occurrences of `char` (one UTF-16 unit) at its end. */
export function trimEndChar(text: string, char: string): string {
  const code = char.charCodeAt(0);
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === code) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` without the occurrences of `char` (one UTF-16 unit) at its start and its end. */
export function trimChar(text: string, char: string): string {
  const code = char.charCodeAt(0);
  let start = 0;
  while (start < text.length && text.charCodeAt(start) === code) start++;
  return trimEndChar(text.slice(start), char);
}
