import { describe, expect, it } from 'vitest';
import { metricFilter } from '../common/metric-variants.js';
import {
  allOf,
  entitiesWhere,
  entityWhere,
  metricFilterWhere,
  REGULAR_ITER,
  seriesWhere,
  SINGLE_VALUE,
  timeCompare,
} from './influx-where.js';

describe('InfluxQL fragments', () => {
  it('tells single values (iteration -2^31) from the iterations that count for histograms', () => {
    expect(SINGLE_VALUE).toBe('time = -2147483648');
    expect(REGULAR_ITER).toBe('time > -2147483648');
  });

  it('selects an entity by company, namespace and id, encoding tag values as the writer does', () => {
    expect(entityWhere({ company: 'co', namespace: 'm', id: "it's" })).toBe(`"c"='co' AND "n"='m' AND "e"='it\\'s'`);
    // Empty values are stored as ~ + base64url.
    expect(entityWhere({ company: 'co', namespace: 't', id: '' })).toContain(`"e"='~'`);
    expect(entitiesWhere('co', 't', ['a', 'b'])).toBe(`"c"='co' AND "n"='t' AND ("e"='a' OR "e"='b')`);
  });

  it('renders the metrics filter, later entries of a metric winning', () => {
    expect(metricFilterWhere(metricFilter([]))).toBeUndefined();
    const filter = metricFilter([
      { metric: 'loss', variants: ['a'] },
      { metric: 'lr' },
      { metric: 'loss', variants: ['b', 'c'] },
    ]);
    expect(metricFilterWhere(filter)).toBe(`(("m"='loss' AND ("v"='b' OR "v"='c')) OR "m"='lr')`);
  });

  it('selects exact series and clamps iterations', () => {
    expect(
      seriesWhere([
        { metric: 'm', variant: 'a' },
        { metric: 'm', variant: 'b' },
        { metric: 'n', variant: '' },
      ]),
    ).toBe(`(("m"='m' AND ("v"='a' OR "v"='b')) OR ("m"='n' AND ("v"='~')))`);
    expect(timeCompare('>', 5)).toBe('time > 5');
    expect(timeCompare('<=', 2 ** 60)).toBe('time <= 1152921504606846976');
    expect(allOf('a', undefined, '', 'b')).toBe('a AND b');
  });
});
