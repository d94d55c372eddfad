/**
 * Paging, size and scrolling (reports.md §4.9), the pure part: which mode the
 * request selects and its validated numbers. The scroll state itself lives
 * in Redis with the caller; `scrollWindow` says which records a call returns.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { toInteger, truthy } from '../../../shared/protocol/request-fields.js';

export const MAX_PAGE_SIZE = 500;

export type PagingSpec =
  | {
      readonly mode: 'scroll';
      /** Records per call (not capped). */
      readonly size: number;
      readonly refresh: boolean;
      /** The id to continue, or undefined when the request starts a new scroll (null, "" or not a string). */
      readonly scrollId: string | undefined;
    }
  | { readonly mode: 'page' | 'size' | 'default'; readonly offset: number; readonly limit: number };

const has = (request: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(request, key);

/** An integer request member per protocol.md §3.3, or the 400/12 of its conversion failure. */
function integer(value: unknown): number {
  const converted = toInteger(value);
  if (!converted.ok) throw apiError('validation_error', converted.detail.toLowerCase());
  return converted.value;
}

export function parsePaging(request: Record<string, unknown>): PagingSpec {
  if (has(request, 'scroll_id')) return scrollMode(request);
  if (has(request, 'page') || has(request, 'page_size')) return pageMode(request);
  const size = request.size;
  if (size !== undefined && size !== null) {
    const n = integer(size);
    if (n < 1) throw apiError('validation_error', `'${n}' is lower than minimum ('1').`);
    return { mode: 'size', offset: 0, limit: Math.min(n, MAX_PAGE_SIZE) };
  }
  return { mode: 'default', offset: 0, limit: MAX_PAGE_SIZE };
}

function scrollMode(request: Record<string, unknown>): PagingSpec {
  const converted = toInteger(request.size);
  if (!converted.ok || converted.value < 1) {
    throw apiError(
      'validation_error',
      'Integer size parameter greater than 1 should be provided when working with scroll',
    );
  }
  const id = request.scroll_id;
  return {
    mode: 'scroll',
    size: converted.value,
    refresh: truthy(request.refresh_scroll),
    scrollId: typeof id === 'string' && id !== '' ? id : undefined,
  };
}

function pageMode(request: Record<string, unknown>): PagingSpec {
  const page = request.page === undefined || request.page === null ? 0 : integer(request.page);
  if (page < 0) throw apiError('validation_error', 'page must be >=0', [['field', 'page']]);
  if (request.page_size === null) {
    throw apiError('missing_required_fields', 'page_size is required when page is requested', [['field', 'page_size']]);
  }
  const pageSize = request.page_size === undefined ? MAX_PAGE_SIZE : integer(request.page_size);
  if (pageSize < 1) throw apiError('validation_error', 'page_size must be >0', [['field', 'page_size']]);
  const limit = Math.min(pageSize, MAX_PAGE_SIZE);
  return { mode: 'page', offset: page * limit, limit };
}

export interface ScrollWindow {
  readonly offset: number;
  readonly limit: number;
  /** The position to store after returning `countReturned` records. */
  nextPosition(countReturned: number): number;
}

/** Records `[position, position + size)`; with refresh `[0, max(position, size))`. */
export function scrollWindow(position: number, size: number, refresh: boolean): ScrollWindow {
  return refresh
    ? { offset: 0, limit: Math.max(position, size), nextPosition: (n) => n }
    : { offset: position, limit: size, nextPosition: (n) => position + n };
}
