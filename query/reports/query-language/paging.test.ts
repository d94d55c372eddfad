import { describe, expect, it } from 'vitest';
import { parsePaging, scrollWindow } from './paging.js';
import { errorOf } from './test-records.js';

describe('§4.9 mode selection', () => {
  it('scroll mode when scroll_id is present with any value', () => {
    expect(parsePaging({ scroll_id: null, size: 10 })).toEqual({
      mode: 'scroll',
      size: 10,
      refresh: false,
      scrollId: undefined,
    });
    expect(parsePaging({ scroll_id: '', size: '5', page: 3 })).toMatchObject({
      mode: 'scroll',
      size: 5,
      scrollId: undefined,
    });
    expect(parsePaging({ scroll_id: 'S', size: 2000, refresh_scroll: 'false' })).toEqual({
      mode: 'scroll',
      size: 2000,
      refresh: true,
      scrollId: 'S',
    });
  });

  it('page mode when page or page_size is present', () => {
    expect(parsePaging({ page: 2, page_size: 10 })).toEqual({ mode: 'page', offset: 20, limit: 10 });
    expect(parsePaging({ page: 1 })).toEqual({ mode: 'page', offset: 500, limit: 500 });
    expect(parsePaging({ page_size: 7, size: 3 })).toEqual({ mode: 'page', offset: 0, limit: 7 });
    expect(parsePaging({ page: null, page_size: 7 })).toEqual({ mode: 'page', offset: 0, limit: 7 });
  });

  it('caps page_size at 500', () => {
    expect(parsePaging({ page: 2, page_size: 1000 })).toEqual({ mode: 'page', offset: 1000, limit: 500 });
  });

  it('size mode, capped at 500', () => {
    expect(parsePaging({ size: 10 })).toEqual({ mode: 'size', offset: 0, limit: 10 });
    expect(parsePaging({ size: 900 })).toEqual({ mode: 'size', offset: 0, limit: 500 });
  });

  it('default: first 500', () => {
    expect(parsePaging({})).toEqual({ mode: 'default', offset: 0, limit: 500 });
    expect(parsePaging({ size: null })).toEqual({ mode: 'default', offset: 0, limit: 500 });
  });
});

describe('§4.9 errors', () => {
  const scrollMessage =
    'Validation error (Integer size parameter greater than 1 should be provided when working with scroll)';
  it.each([
    [{ page: -1 }, '400/12', 'Validation error (page must be >=0): field=page'],
    [{ page: 0, page_size: 0 }, '400/12', 'Validation error (page_size must be >0): field=page_size'],
    [
      { page: 0, page_size: null },
      '400/11',
      'Missing required fields (page_size is required when page is requested): field=page_size',
    ],
    [{ page: 'x' }, '400/12', "Validation error (invalid literal for int() with base 10: 'x')"],
    [{ page: 0, page_size: true }, '400/12', 'Validation error (value is wrong, expected type "int" true)'],
    [{ size: 0 }, '400/12', "Validation error ('0' is lower than minimum ('1').)"],
    [{ size: '1.5' }, '400/12', "Validation error (invalid literal for int() with base 10: '1.5')"],
    [{ scroll_id: null }, '400/12', scrollMessage],
    [{ scroll_id: 'S', size: 0 }, '400/12', scrollMessage],
    [{ scroll_id: 'S', size: 'ten' }, '400/12', scrollMessage],
  ])('%j', (request, code, message) => {
    expect(errorOf(() => parsePaging(request))).toEqual({ code, message });
  });
});

describe('§4.9 scroll windows: 18 records, size 10', () => {
  const all = Array.from({ length: 18 }, (_, i) => i);
  const call = (position: number, refresh: boolean) => {
    const w = scrollWindow(position, 10, refresh);
    const returned = all.slice(w.offset, w.offset + w.limit);
    return { returned, position: w.nextPosition(returned.length) };
  };

  it('10, 8, 0, then refresh returns all 18', () => {
    const c1 = call(0, false);
    expect(c1.returned).toHaveLength(10);
    const c2 = call(c1.position, false);
    expect(c2.returned).toEqual(all.slice(10));
    const c3 = call(c2.position, false);
    expect(c3.returned).toEqual([]);
    expect(c3.position).toBe(18);
    const c4 = call(c3.position, true);
    expect(c4.returned).toEqual(all);
    expect(c4.position).toBe(18);
  });

  it('refresh before the first page returns size records', () => {
    expect(scrollWindow(0, 10, true)).toMatchObject({ offset: 0, limit: 10 });
  });
});
