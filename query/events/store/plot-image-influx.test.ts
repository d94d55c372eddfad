import { describe, expect, it } from 'vitest';
import { metricFilter } from '../common/metric-variants.js';
import {
  decodeEvents,
  decodePositions,
  metricFilterCondition,
  metricsCondition,
  NOTHING,
  scopeCondition,
  where,
} from './plot-image-influx.js';

describe('InfluxQL fragments', () => {
  it('scope: company, namespace, entities (tag values encoded and quoted)', () => {
    expect(scopeCondition('co', 't', ['a'])).toBe(`"c" = 'co' AND "n" = 't' AND "e" = 'a'`);
    expect(scopeCondition('co', 'm', ['a', "it's"])).toBe(`"c" = 'co' AND "n" = 'm' AND ("e" = 'a' OR "e" = 'it\\'s')`);
  });

  it('metrics: absent selects all, an empty list nothing; empty names use the stored encoding', () => {
    expect(metricsCondition(undefined)).toBeUndefined();
    expect(metricsCondition([])).toBe(NOTHING);
    expect(
      metricsCondition([
        { metric: 'roc', variants: ['a', 'b'] },
        { metric: '', variants: null },
      ]),
    ).toBe(`(("m" = 'roc' AND ("v" = 'a' OR "v" = 'b')) OR "m" = '~')`);
    expect(metricFilterCondition(metricFilter([]))).toBeUndefined();
    expect(metricFilterCondition(metricFilter([{ metric: 'x', variants: [] }]))).toBe(`"m" = 'x'`);
  });

  it('where joins what is given; anything AND nothing is nothing', () => {
    expect(where('a', undefined, false, 'b')).toBe('a AND b');
    expect(where('a', NOTHING)).toBe(NOTHING);
  });
});

describe('decoding', () => {
  it('positions carry decoded tags, the iteration (null for the no-iteration time) and the url', () => {
    const positions = decodePositions([
      {
        name: 'image',
        tags: { m: '~bXk', v: 'x' },
        columns: ['time', 'u'],
        values: [
          [3, 'http://u'],
          [-9223372036854775806, 'http://v'],
        ],
      },
    ]);
    expect(positions.map((p) => [p.metric, p.variant, p.iter, p.url])).toEqual([
      ['my', 'x', 3, 'http://u'],
      ['my', 'x', null, 'http://v'],
    ]);
  });

  it('a key grouped as "" (series without the tag) is absent from the event', () => {
    const [withKey, without] = decodeEvents(
      [
        {
          name: 'image',
          tags: { k: 'file.png' },
          columns: ['time', 'at', 'c', 'e', 'm', 'n', 'q', 'ts', 'u', 'v', 'w'],
          values: [[1, 5, 'co', 't1', 'm', 't', 9, 4, 'u', 'v', 'w']],
        },
        {
          name: 'image',
          tags: { k: '' },
          columns: ['time', 'at', 'c', 'e', 'm', 'n', 'q', 'ts', 'u', 'v', 'w'],
          values: [[2, 5, 'co', 't1', 'm', 't', 9, 4, 'u', 'v', 'w']],
        },
      ],
      'image',
    );
    expect(withKey!.event.key).toBe('file.png');
    expect('key' in without!.event).toBe(false);
  });
});
