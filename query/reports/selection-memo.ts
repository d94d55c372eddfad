/**
 * get_all_ex's selections (filter and sort over the cached records,
 * compile-query.ts `select`) remembered per process for the inputs they
 * were computed from: the request without its paging and projection, and
 * the per-company record and project lists by identity. The read caches
 * answer the same arrays until something of the company changes (report
 * writes and event writes alike: store/report-snapshots.ts), so a repeated
 * query (the web UI's list, polled; the pages of one scroll) costs its
 * page, not a pass over every report of the company; any change makes a
 * new list and the next call computes afresh. docs/reports.md, "Read path".
 */
import type { StoredRecord } from './query-language/compile-query.js';
import { sameItems } from './store/joined-lists.js';

/** Selections kept per process. Each holds references only (up to one per report of a company). */
const ENTRIES = 64;
/** Requests whose selection part is longer (long id lists and the like) are computed every time. */
const MAX_KEY_LENGTH = 4096;
/** Request fields that pick the page or shape the records, not the selection. */
const NOT_SELECTION = new Set(['page', 'page_size', 'size', 'scroll_id', 'refresh_scroll', 'only_fields']);

interface Entry {
  inputs: readonly unknown[];
  sorted: readonly StoredRecord[];
}

export class SelectionMemo {
  private readonly entries = new Map<string, Entry>();

  /**
   * The selection of `request` over `inputs` (compared by identity),
   * remembered or computed by `compute`. A computation that throws is not
   * remembered.
   */
  select(
    request: Record<string, unknown>,
    companies: readonly string[],
    inputs: readonly unknown[],
    compute: () => readonly StoredRecord[],
  ): readonly StoredRecord[] {
    const key = selectionKey(request, companies);
    if (key === undefined) return compute();
    const known = this.entries.get(key);
    if (known !== undefined) {
      this.entries.delete(key);
      if (sameItems(known.inputs, inputs)) {
        this.entries.set(key, known);
        return known.sorted;
      }
    }
    const sorted = compute();
    if (this.entries.size >= ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { inputs, sorted });
    return sorted;
  }
}

function selectionKey(request: Record<string, unknown>, companies: readonly string[]): string | undefined {
  const selection = Object.entries(request).filter(([field]) => !NOT_SELECTION.has(field));
  const key = JSON.stringify([companies, selection]);
  return key.length > MAX_KEY_LENGTH ? undefined : key;
}
