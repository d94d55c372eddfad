// Issue 10: client-named paths (only_fields, order_by, multi-field `fields`)
// never reach a prototype: prototype segments are refused with 400/12, and
// other names read own properties only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../../shared/errors/error-catalogue.js';
import { compileQuery } from './compile-query.js';
import { recordValue } from './record-path.js';
import { errorOf } from './test-records.js';
import type { StoredRecord } from './types.js';

const record = (id: string, fields: Record<string, unknown> = {}): StoredRecord => ({
  id,
  name: `report ${id}`,
  type: 'report',
  company: 'c1',
  created: 1_700_000_000_000 + Number(id.slice(1)) * 1000,
  runtime: { gpu: 'a100' },
  ...fields,
});

const records = [record('r1'), record('r2', { runtime: { gpu: 'h100' } }), record('r3', { runtime: {} })];
const resolve = () => undefined;
const run = (request: Record<string, unknown>) => {
  const query = compileQuery(request, 'report');
  return query.select(records).map((r) => query.project(r, resolve));
};

describe('prototype segments in client paths', () => {
  it.each([
    ['only_fields', { only_fields: ['runtime.__proto__.polluted'] }],
    ['only_fields exclusion', { only_fields: ['-runtime.constructor'] }],
    ['only_fields first segment', { only_fields: ['constructor'] }],
    ['order_by', { order_by: ['-runtime.constructor.name'] }],
    ['multi-field pattern', { _any_: { fields: ['runtime.constructor.name'], pattern: 'Object' } }],
    ['multi-field prototype', { _all_: { fields: ['name.prototype'], pattern: 'x' } }],
  ])('%s: 400/12', (_where, request) => {
    expect(errorOf(() => run(request)).code).toBe('400/12');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('inherited members are not values: runtime.toString matches and projects nothing', () => {
    expect(recordValue(record('r1'), ['runtime', 'toString'])).toBeUndefined();
    expect(recordValue(record('r1'), ['hasOwnProperty'])).toBeUndefined();
    expect(run({ _any_: { fields: ['runtime.toString.name'], pattern: 'toString' } })).toEqual([]);
    expect(run({ only_fields: ['runtime.toString'] })).toEqual([{ id: 'r1' }, { id: 'r2' }, { id: 'r3' }]);
    expect(run({ only_fields: ['runtime.gpu'], order_by: ['-runtime.valueOf'] }).map((r) => r.id)).toEqual([
      'r1',
      'r2',
      'r3',
    ]);
  });

  it('property: any path list compiles to results or a 4xx ApiError, never touching Object.prototype', () => {
    const segment = fc.oneof(
      fc.constantFrom(
        '__proto__',
        'constructor',
        'prototype',
        'toString',
        'runtime',
        'gpu',
        'name',
        'id',
        'valueOf',
        '',
      ),
      fc.string({ maxLength: 6 }),
    );
    const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('.'));
    const signed = fc.tuple(fc.constantFrom('', '-'), path).map(([sign, p]) => sign + p);
    fc.assert(
      fc.property(
        fc.array(signed, { maxLength: 4 }),
        fc.array(signed, { maxLength: 3 }),
        fc.array(path, { maxLength: 3 }),
        (only, order, fields) => {
          try {
            const out = run({ only_fields: only, order_by: order, _any_: { fields, pattern: 'a' } });
            expect(Array.isArray(out)).toBe(true);
          } catch (error) {
            if (!isApiError(error)) throw error;
            expect(error.httpStatus).toBeGreaterThanOrEqual(400);
            expect(error.httpStatus).toBeLessThan(500);
          }
          expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
        },
      ),
      { numRuns: 500 },
    );
  });
});
