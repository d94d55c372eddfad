import { describe, expect, it } from 'vitest';
import { metricFilter, taskMetricSelections } from './metric-variants.js';

describe('metricFilter', () => {
  it('means no filter when absent or empty', () => {
    for (const input of [undefined, null, []]) {
      const filter = metricFilter(input);
      expect(filter.isEmpty).toBe(true);
      expect(filter.matches('any', 'thing')).toBe(true);
      expect(filter.metrics).toEqual([]);
    }
  });

  it('selects the union of the entries', () => {
    const filter = metricFilter([{ metric: 'loss', variants: ['train'] }, { metric: 'acc' }]);
    expect(filter.isEmpty).toBe(false);
    expect(filter.matches('loss', 'train')).toBe(true);
    expect(filter.matches('loss', 'val')).toBe(false);
    expect(filter.matches('acc', 'whatever')).toBe(true);
    expect(filter.matches('lr', '')).toBe(false);
    expect(filter.hasMetric('acc')).toBe(true);
    expect(filter.hasMetric('lr')).toBe(false);
    expect(filter.namesVariants).toBe(true);
  });

  it('keeps the later entry when a metric appears twice', () => {
    const filter = metricFilter([
      { metric: 'loss', variants: ['train'] },
      { metric: 'loss', variants: ['val', 'val'] },
    ]);
    expect(filter.matches('loss', 'train')).toBe(false);
    expect(filter.matches('loss', 'val')).toBe(true);
    expect(filter.metrics).toEqual([{ metric: 'loss', variants: ['val'] }]);

    const widened = metricFilter([
      { metric: 'loss', variants: ['train'] },
      { metric: 'loss', variants: [] },
    ]);
    expect(widened.matches('loss', 'val')).toBe(true);
    expect(widened.metrics).toEqual([{ metric: 'loss', variants: undefined }]);
    expect(widened.namesVariants).toBe(false);
  });

  it('treats empty or null variants as all variants', () => {
    expect(metricFilter([{ metric: 'm', variants: [] }]).matches('m', 'x')).toBe(true);
    expect(metricFilter([{ metric: 'm', variants: null }]).matches('m', 'x')).toBe(true);
  });
});

describe('taskMetricSelections', () => {
  it('groups by task in order of first appearance', () => {
    const result = taskMetricSelections([
      { task: 't2', metric: 'a' },
      { task: 't1', metric: 'b', variants: ['v'] },
      { task: 't2', metric: 'c', variants: ['w'] },
    ]);
    expect(result.map((r) => r.task)).toEqual(['t2', 't1']);
    expect(result[0]!.metrics.metrics).toEqual([
      { metric: 'a', variants: undefined },
      { metric: 'c', variants: ['w'] },
    ]);
    expect(result[1]!.metrics.matches('b', 'v')).toBe(true);
    expect(result[1]!.metrics.matches('b', 'x')).toBe(false);
  });

  it('selects all metrics of a task when any of its entries has no metric', () => {
    const result = taskMetricSelections([
      { task: 't1', metric: 'a', variants: ['v'] },
      { task: 't1', variants: ['ignored'] },
      { task: 't1', metric: 'b' },
    ]);
    expect(result).toHaveLength(1);
    expect(result[0]!.metrics.isEmpty).toBe(true);
    expect(result[0]!.metrics.matches('z', 'q')).toBe(true);
  });
});
