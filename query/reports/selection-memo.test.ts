import { describe, expect, it } from 'vitest';
import type { StoredRecord } from './query-language/compile-query.js';
import { SelectionMemo } from './selection-memo.js';

const record = (id: string): StoredRecord => Object.freeze({ id, type: 'report' });

describe('SelectionMemo', () => {
  it('reuses a selection only while every input is the same array; pages and projections share it', () => {
    const memo = new SelectionMemo();
    let computed = 0;
    const compute = (list: readonly StoredRecord[]) => () => {
      computed++;
      return [...list];
    };
    const first = [record('a')];
    const none: StoredRecord[] = []; // the public company's list: the same array while it does not change
    const query = { tags: ['t'], order_by: ['-last_update'] };
    expect(
      memo.select({ ...query, page: 0, page_size: 1 }, ['co', ''], [first, none], compute(first)).map((r) => r.id),
    ).toEqual(['a']);
    memo.select({ ...query, page: 3, page_size: 50, only_fields: ['name'] }, ['co', ''], [first, none], compute(first));
    expect(computed).toBe(1);
    // A changed company (a new list from the read cache) is computed afresh, never answered from before.
    const changed = [record('a'), record('b')];
    expect(memo.select(query, ['co', ''], [changed, none], compute(changed)).map((r) => r.id)).toEqual(['a', 'b']);
    expect(computed).toBe(2);
    // Another selection or another company scope is another entry.
    memo.select({ ...query, tags: ['u'] }, ['co', ''], [changed, none], compute(changed));
    memo.select(query, ['co'], [changed], compute(changed));
    expect(computed).toBe(4);
  });

  it('does not remember a selection that failed, nor requests beyond the key bound', () => {
    const memo = new SelectionMemo();
    const list = [record('a')];
    expect(() =>
      memo.select({ name: '(' }, ['co'], [list], () => {
        throw new Error('budget');
      }),
    ).toThrow('budget');
    expect(memo.select({ name: '(' }, ['co'], [list], () => list)).toBe(list);
    let computed = 0;
    const long = { id: Array.from({ length: 1000 }, (_, i) => `id-${i}`) };
    for (let i = 0; i < 2; i++) memo.select(long, ['co'], [list], () => (computed++, list));
    expect(computed).toBe(2);
  });
});
