import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plotRefKey } from './plot-bodies.js';

const position = fc.record({
  entity: fc.string({ unit: 'grapheme', maxLength: 12 }),
  metric: fc.string({ unit: 'grapheme', maxLength: 12 }),
  variant: fc.string({ unit: 'grapheme', maxLength: 12 }),
  iter: fc.option(fc.integer(), { nil: null }),
});

describe('plotRefKey', () => {
  it('is one key per (entity, metric, variant, iteration), whatever the names hold', () => {
    fc.assert(
      fc.property(position, position, (a, b) => {
        const same = a.entity === b.entity && a.metric === b.metric && a.variant === b.variant && a.iter === b.iter;
        expect(plotRefKey(a) === plotRefKey(b)).toBe(same);
      }),
      { numRuns: 5000 },
    );
  });

  it('tells apart names whose concatenations read alike', () => {
    const keys = [
      { entity: 't', metric: 'a', variant: 'bc', iter: 1 },
      { entity: 't', metric: 'ab', variant: 'c', iter: 1 },
      { entity: 't', metric: 'a1:b', variant: 'c', iter: 1 },
      { entity: 't', metric: 'a', variant: '1:bc', iter: 1 },
      { entity: 't', metric: 'a', variant: 'b', iter: 11 },
      { entity: 't', metric: 'a', variant: 'b1', iter: 1 },
      { entity: 't', metric: 'a', variant: 'bnull', iter: null },
      { entity: 't', metric: 'a', variant: 'b', iter: null },
    ].map(plotRefKey);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
