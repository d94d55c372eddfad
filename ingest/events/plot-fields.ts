/** Fields the service derives from a plot's `plot_str` at ingest (events.md §1.7). */
import { jsonHasTooManyContainers } from '../../shared/protocol/client-object.js';
import { isPythonJson } from './python-json.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** `plot_len`: the length of `plot_str` in Unicode code points (0 when absent). */
export function plotLength(plotStr: string | null | undefined): number {
  if (!plotStr) return 0;
  if (!SURROGATE.test(plotStr)) return plotStr.length;
  let length = plotStr.length;
  for (let i = 0; i < plotStr.length - 1; i++) {
    const unit = plotStr.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = plotStr.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

// A member named `source` whose string value starts with a URL scheme. The
// value ends at the quote that opened it (ClearML ends it at any quote,
// which cuts URLs holding an apostrophe) and, like Python's `.`, never
// crosses a line feed. Case is spelled out instead of using the `i` flag,
// which makes the scan of a multi-megabyte plot several times slower.
const SOURCE_MEMBER = /["'][sS][oO][uU][rR][cC][eE]["']: ?(["'])([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\n]*?)\1/g;

/** `source_urls`: the distinct embedded-image URLs of a Plotly figure, or undefined when there are none. */
export function extractSourceUrls(plotStr: string | null | undefined): string[] | undefined {
  if (!plotStr) return undefined;
  const urls = new Set<string>();
  for (const match of plotStr.matchAll(SOURCE_MEMBER)) urls.add(match[2]!);
  return urls.size > 0 ? [...urls] : undefined;
}

/**
 * `valid_plot`: whether `plot_str` parses as JSON the way ClearML parses it
 * (Python's json.loads, which also accepts NaN and ±Infinity). Empty is invalid.
 * JSON.parse is the fast answer for a plot's long lists of numbers; a text with
 * more objects and lists than it is given elsewhere is only checked for syntax,
 * which builds nothing (22 million `{}` cost JSON.parse 43 s and 1.4 GB).
 */
export function isValidPlotJson(plotStr: string | null | undefined): boolean {
  if (!plotStr) return false;
  if (jsonHasTooManyContainers(plotStr)) return isPythonJson(plotStr);
  try {
    JSON.parse(plotStr);
    return true;
  } catch {
    return (plotStr.includes('NaN') || plotStr.includes('Infinity')) && isPythonJson(plotStr);
  }
}
