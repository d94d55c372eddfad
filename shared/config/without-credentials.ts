/**
 * A URL (or text that was meant to be one) as it may be shown in errors and
 * logs: whatever precedes the last `@` may be a password, even in a URL too
 * broken to parse, and a query may carry a token.
 */
export function withoutCredentials(text: string): string {
  let out = text;
  const at = out.lastIndexOf('@');
  if (at >= 0) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?/.exec(out)?.[0] ?? '';
    out = `${scheme}***${out.slice(at)}`;
  }
  const query = out.indexOf('?');
  return query >= 0 ? `${out.slice(0, query)}?***` : out;
}
