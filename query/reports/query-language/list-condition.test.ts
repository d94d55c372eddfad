import { describe, expect, it } from 'vitest';
import { compileListCondition, parseListCondition } from './list-condition.js';
import { errorOf, idsMatching } from './test-records.js';
import type { StoredRecord } from './types.js';

// One record per tag combination: r_ (empty), r_a, r_b, r_ab, r_c, r_bc, r_abc, r_-a, and one without the field.
const records: StoredRecord[] = [
  { id: 'none' },
  { id: '_', tags: [] },
  { id: 'a', tags: ['a'] },
  { id: 'b', tags: ['b'] },
  { id: 'ab', tags: ['a', 'b'] },
  { id: 'c', tags: ['c'] },
  { id: 'bc', tags: ['b', 'c'] },
  { id: 'abc', tags: ['a', 'b', 'c'] },
  { id: '-a', tags: ['-a'] },
];

const tagsMatching = (value: unknown) => {
  const condition = compileListCondition('tags', value);
  return condition ? idsMatching(records, (r) => condition.test(r)) : 'no condition';
};

describe('§4.2 examples (field tags)', () => {
  it.each([
    [
      ['a', 'b'],
      ['a', 'b', 'ab', 'bc', 'abc'],
    ],
    [['a', '-b'], ['a']],
    [
      ['-a', '-b'],
      ['none', '_', 'c', '-a'],
    ],
    [
      ['__$not', 'a'],
      ['none', '_', 'b', 'c', 'bc', '-a'],
    ],
    [
      ['__$and', 'a'],
      ['a', 'ab', 'abc'],
    ],
    [
      ['__$all', 'a', 'b'],
      ['ab', 'abc'],
    ],
    [['__$and', 'a', '__$not', 'b'], ['a']],
    [
      ['__$or', 'a', '__$not', 'b'],
      ['none', '_', 'a', 'ab', 'c', 'abc', '-a'],
    ],
    [
      ['__$any', 'a', '__$all', 'b', 'c'],
      ['a', 'ab', 'bc', 'abc'],
    ],
    [['a', '__$all', 'b', 'c'], ['abc']],
    [['__$and', '-a'], ['-a']],
    [[null], ['none', '_']],
    [
      ['a', null],
      ['none', '_', 'a', 'ab', 'abc'],
    ],
  ])('%j', (value, expected) => {
    expect(tagsMatching(value)).toEqual(expected);
  });
});

describe('§4.1 value shapes', () => {
  it('takes a single string as a one-element list', () => {
    expect(tagsMatching('c')).toEqual(['c', 'bc', 'abc']);
  });

  it('treats an empty list, null and absence as no condition', () => {
    expect(tagsMatching([])).toBe('no condition');
    expect(tagsMatching(null)).toBe('no condition');
    expect(tagsMatching(undefined)).toBe('no condition');
  });

  it('compares scalar fields by equality', () => {
    const rows: StoredRecord[] = [{ id: 'x', user: 'u1' }, { id: 'y', user: 'u2' }, { id: 'z' }];
    const user = (v: unknown) => idsMatching(rows, (r) => compileListCondition('user', v)!.test(r));
    expect(user(['u1'])).toEqual(['x']);
    expect(user(['-u1'])).toEqual(['y', 'z']);
    expect(user([null])).toEqual(['z']);
    expect(user(['u2', null])).toEqual(['y', 'z']);
  });

  it('folds case when asked (get_task_data type)', () => {
    const rows: StoredRecord[] = [
      { id: 'x', type: 'training' },
      { id: 'y', type: 'testing' },
    ];
    const c = compileListCondition('type', ['TRAINING'], { caseInsensitive: true })!;
    expect(idsMatching(rows, (r) => c.test(r))).toEqual(['x']);
  });
});

describe('§4.2 token rules', () => {
  it('cancels a pending __$not with null or __$nop', () => {
    expect(parseListCondition('tags', ['__$not', null, 'a'])).toMatchObject({ any: ['a'], none: [], allowEmpty: true });
    expect(parseListCondition('tags', ['__$and', '__$not', '__$nop', '-a'])).toMatchObject({ all: [], none: ['a'] });
  });

  it('__$not takes the next value literally', () => {
    expect(parseListCondition('tags', ['__$not', '-x'])).toMatchObject({ none: ['-x'] });
  });

  it('__$nop restores OR context and the minus prefix', () => {
    expect(parseListCondition('tags', ['__$and', 'a', '__$nop', 'b', '-c'])).toMatchObject({
      any: ['b'],
      all: ['a'],
      none: ['c'],
      combineWithOr: false,
    });
  });

  it('uses the first token for the combining operator only', () => {
    expect(parseListCondition('tags', ['__$or', 'a'])!.combineWithOr).toBe(true);
    expect(parseListCondition('tags', ['a', '__$or', 'b'])!.combineWithOr).toBe(false);
    expect(parseListCondition('tags', ['__$not', 'a'])!.combineWithOr).toBe(false);
  });

  it('operators alone make no condition', () => {
    expect(parseListCondition('tags', ['__$and'])).toBeUndefined();
  });
});

describe('§4.1/§4.2 errors (400/16)', () => {
  it.each([
    [['a', 5], 'Invalid value for fields (invalid value type, string expected): field=tags, value=5'],
    [[{ a: 1 }], "Invalid value for fields (invalid value type, string expected): field=tags, value={'a': 1}"],
    [true, 'Invalid value for fields (invalid value type, string expected): field=tags, value=True'],
    [['__$not', '__$and', 'a'], 'Invalid value for fields (Value is expected after): field=tags, operator=__$not'],
    [['__$not', '__$bogus'], 'Invalid value for fields (Value is expected after): field=tags, operator=__$not'],
    [['a', '__$not'], 'Invalid value for fields (Value is expected after): operator=__$not'],
    [['__$xor', 'a'], 'Invalid value for fields (Unsupported operator): field=tags, operator=__$xor'],
    [['-'], 'Invalid value for fields (Missing value after the exclude prefix -): field=tags, value='],
  ])('%j', (value, message) => {
    expect(errorOf(() => parseListCondition('tags', value))).toEqual({ code: '400/16', message });
  });

  it('accepts a bare "-" when the minus prefix is off', () => {
    expect(parseListCondition('tags', ['__$or', '-'])).toMatchObject({ any: ['-'] });
  });
});
