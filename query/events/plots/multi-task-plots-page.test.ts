import { describe, expect, it } from 'vitest';
import {
  multiTaskPlotCandidates,
  multiTaskPlotsPage,
  selectTaskPlots,
  taskPlotsPage,
  type MultiTaskPlotCandidate,
  type TaskPlotCandidate,
} from './multi-task-plots-page.js';

interface Plot extends MultiTaskPlotCandidate {
  id: string;
}

const plot = (entity: string, metric: string, variant: string, iter: number): Plot => ({
  entity,
  metric,
  variant,
  iter,
  id: `${entity}/${metric}/${variant}@${iter}`,
});
const names: Record<string, string> = { '8f1c2d': 'resnet run 1', '77aa01': 'resnet run 2' };
const nameOf = (entity: string) => names[entity] ?? entity;

describe('get_multi_task_plots (§7.2)', () => {
  it('reproduces the response example: latest iteration per entity and metric', () => {
    const matching = [
      plot('8f1c2d', 'roc', 'class1', 1),
      plot('8f1c2d', 'roc', 'class1', 3),
      plot('77aa01', 'roc', 'class1', 0),
      plot('77aa01', 'roc', 'class1', 1),
    ];
    const candidates = multiTaskPlotCandidates(matching, 1, true);
    const page = multiTaskPlotsPage(candidates, { iters: 1, position: null, nameOf });
    expect(JSON.parse(JSON.stringify(page.plots))).toEqual({
      roc: {
        class1: {
          '8f1c2d': { '3': { name: 'resnet run 1', plots: [matching[1]] } },
          '77aa01': { '1': { name: 'resnet run 2', plots: [matching[3]] } },
        },
      },
    });
    expect([page.returned, page.total]).toEqual([1, 2]);
  });

  it('selects iterations per entity and metric, or per entity', () => {
    const matching = [plot('t', 'a', 'v', 5), plot('t', 'b', 'v', 2), plot('t', 'b', 'v', 1)];
    expect(multiTaskPlotCandidates(matching, 1, true).map((p) => p.id)).toEqual(['t/a/v@5', 't/b/v@2']);
    expect(multiTaskPlotCandidates(matching, 1, false).map((p) => p.id)).toEqual(['t/a/v@5']);
    expect(multiTaskPlotCandidates(matching, 2, false).map((p) => p.id)).toEqual(['t/a/v@5', 't/b/v@2']);
  });

  it('orders candidates by iter descending, then entity, metric, variant', () => {
    const matching = [
      plot('b', 'm', 'v', 1),
      plot('a', 'm', 'w', 1),
      plot('a', 'm', 'v', 1),
      plot('a', 'l', 'z', 1),
      plot('c', 'm', 'v', 2),
    ];
    expect(multiTaskPlotCandidates(matching, 5, true).map((p) => p.id)).toEqual([
      'c/m/v@2',
      'a/l/z@1',
      'a/m/v@1',
      'a/m/w@1',
      'b/m/v@1',
    ]);
  });

  it('keeps at most `iters` events per (metric, variant, entity) of the page', () => {
    const matching = [plot('t', 'm', 'v', 3), plot('t', 'm', 'v', 2), plot('t', 'm', 'w', 2), plot('t', 'm', 'v', 1)];
    const candidates = multiTaskPlotCandidates(matching, 2, false); // iterations 3 and 2
    const page = multiTaskPlotsPage(candidates, { iters: 2, position: null, nameOf });
    expect(Object.keys(page.plots.m!.v!.t!)).toEqual(['2', '3']);
    expect(Object.keys(page.plots.m!.w!.t!)).toEqual(['2']);
    expect(page.total).toBe(3);
  });

  it('pages by 1000 candidates and ends with an empty page', () => {
    const matching = Array.from({ length: 1500 }, (_, i) => plot('t', `m${String(i).padStart(4, '0')}`, 'v', 0));
    const candidates = multiTaskPlotCandidates(matching, 1, true);
    const first = multiTaskPlotsPage(candidates, { iters: 1, position: null, nameOf });
    expect([first.returned, first.total]).toEqual([1000, 1500]);
    const second = multiTaskPlotsPage(candidates, { iters: 1, position: first.position, nameOf });
    expect(second.returned).toBe(500);
    expect(Object.keys(second.plots)[0]).toBe('m1000');
    const third = multiTaskPlotsPage(candidates, { iters: 1, position: second.position, nameOf });
    expect(third).toMatchObject({ returned: 0, plots: {}, position: second.position });
  });

  it('caps total at 10000', () => {
    const matching = Array.from({ length: 10_001 }, (_, i) => plot('t', `m${i}`, 'v', 0));
    expect(
      multiTaskPlotsPage(multiTaskPlotCandidates(matching, 1, true), { iters: 1, position: null, nameOf }).total,
    ).toBe(10_000);
  });

  it('accepts any metric name as a key', () => {
    const page = multiTaskPlotsPage([plot('t', '__proto__', 'constructor', 0)], { iters: 1, position: null, nameOf });
    expect(JSON.parse(JSON.stringify(page.plots))).toEqual(
      JSON.parse(
        '{"__proto__": {"constructor": {"t": {"0": {"name": "t", "plots": [{"entity": "t", "metric": "__proto__", "variant": "constructor", "iter": 0, "id": "t/__proto__/constructor@0"}]}}}}}',
      ),
    );
    expect(page.returned).toBe(1);
  });
});

describe('get_task_plots (§7.1)', () => {
  interface TP extends TaskPlotCandidate {
    id: string;
  }
  const tp = (metric: string, variant: string, iter?: number, valid_plot?: boolean): TP => ({
    metric,
    variant,
    iter,
    valid_plot,
    id: `${metric}/${variant}@${iter ?? '-'}`,
  });
  const events = [
    tp('roc', 'c1', 1),
    tp('roc', 'c1'),
    tp('roc', 'c1', 3),
    tp('roc', 'c1', 2),
    tp('cm', 'x', 0),
    tp('roc', 'c2'),
    tp('cm', 'x', 5, false),
    tp('roc', 'a', 7),
  ];

  it('keeps the `iters` latest per (metric, variant), hides invalid plots, orders by metric, variant, iter desc', () => {
    expect(selectTaskPlots(events, 2).map((e) => e.id)).toEqual([
      'cm/x@0',
      'roc/a@7',
      'roc/c1@3',
      'roc/c1@2',
      'roc/c2@-',
    ]);
    expect(selectTaskPlots(events, 1).map((e) => e.id)).toEqual(['cm/x@0', 'roc/a@7', 'roc/c1@3', 'roc/c2@-']);
  });

  it('ranks events without iter below every iteration', () => {
    expect(
      selectTaskPlots(events, 10)
        .filter((e) => e.metric === 'roc' && e.variant === 'c1')
        .map((e) => e.id),
    ).toEqual(['roc/c1@3', 'roc/c1@2', 'roc/c1@1', 'roc/c1@-']);
  });

  it('pages the selection and ends with an empty page', () => {
    const selected = selectTaskPlots(events, 10);
    const first = taskPlotsPage(selected, null, 4);
    expect([first.plots.length, first.total]).toEqual([4, 7]);
    const second = taskPlotsPage(selected, first.position, 4);
    expect(second.plots.map((e) => e.id)).toEqual(['roc/c1@1', 'roc/c1@-', 'roc/c2@-']);
    expect(second.position).toEqual({ metric: 'roc', variant: 'c2', iter: null });
    const third = taskPlotsPage(selected, second.position, 4);
    expect(third).toEqual({ plots: [], total: 7, position: second.position });
    expect(taskPlotsPage(selected, null).plots).toHaveLength(7);
  });
});
