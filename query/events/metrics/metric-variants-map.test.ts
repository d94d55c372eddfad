import { describe, expect, it } from 'vitest';
import { metricVariantsMap } from './metric-variants-map.js';

describe('metricVariantsMap', () => {
  it('groups variants per metric, both in code-point order, without duplicates', () => {
    const entry = (metric: string, variant: string) => ({
      type: 'training_stats_scalar',
      metric,
      variant,
      regular: true,
    });
    const map = metricVariantsMap([
      entry('b', 'y'),
      entry('a', 'z'),
      entry('b', 'x'),
      entry('b', 'y'),
      entry('\u{1F600}', ''),
      entry('\uFFFD', ''),
    ]);
    expect([...map]).toEqual([
      ['a', ['z']],
      ['b', ['x', 'y']],
      ['\uFFFD', ['']],
      ['\u{1F600}', ['']],
    ]);
  });
});
