// events.get_task_plots (events.md §7.1) and events.get_multi_task_plots (§7.2) through the real pipeline,
// with plot validation on (so that invalid plots exist to be hidden).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { expectError, type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { redisKeys } from '../../shared/stores/redis-keys.js';
import { plot } from '../harness/event-builders.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ env: { PLOT_VALIDATION: 'true' }, worker: 'test-worker' });
});
afterAll(async () => f?.stop());

const where = (p: { metric: string; variant: string; iter?: number }) => `${p.metric}/${p.variant}@${p.iter ?? '-'}`;

async function plotsVisible(task: string, count: number, modelEvents = false): Promise<void> {
  await eventually(
    () => f.data('events.get_task_plots', { task, iters: 100, model_events: modelEvents }),
    (d) => d.total === count,
  );
}

describe('events.get_task_plots', () => {
  const task = unique('tp-');
  beforeAll(async () => {
    await f.add([
      ...[0, 1, 2, 3, 4].map((i) => plot(task, 'roc', 'class1', i)),
      ...[0, 1, 2].map((i) => plot(task, 'roc', 'class2', i)),
      plot(task, 'conf', 'table', undefined),
      plot(task, 'conf', 'table', 1),
      // Invalid at the latest iteration of class2: hidden, the next one stands in.
      plot(task, 'roc', 'class2', 3, { plot_str: 'not json' }),
    ]);
    await plotsVisible(task, 10);
  });

  it('latest plot per metric/variant, by metric, variant, iteration descending', async () => {
    const d = await f.data('events.get_task_plots', { task });
    expect(d.plots.map(where)).toEqual(['conf/table@1', 'roc/class1@4', 'roc/class2@2']);
    expect(d.returned).toBe(3);
    expect(d.total).toBe(3);
    expect(d.scroll_id).toEqual(expect.any(String));
    expect(d.plots[1]).toEqual({
      type: 'plot',
      task,
      iter: 4,
      metric: 'roc',
      variant: 'class1',
      plot_str: JSON.stringify({ data: [{ x: [4] }], layout: { title: 'roc/class1@4' } }),
      plot_len: JSON.stringify({ data: [{ x: [4] }], layout: { title: 'roc/class1@4' } }).length,
      valid_plot: true,
      timestamp: 1_718_000_000_004,
      worker: 'test-worker',
      model_event: false,
      '@timestamp': expect.any(String),
    });
  });

  it('iters: N events per metric/variant; plots without iteration rank last', async () => {
    const d = await f.data('events.get_task_plots', { task, iters: 2 });
    expect(d.plots.map(where)).toEqual([
      'conf/table@1',
      'conf/table@-',
      'roc/class1@4',
      'roc/class1@3',
      'roc/class2@2',
      'roc/class2@1',
    ]);
  });

  it('metrics filter', async () => {
    const d = await f.data('events.get_task_plots', {
      task,
      iters: 5,
      metrics: [{ metric: 'roc', variants: ['class2'] }],
    });
    expect(d.plots.map(where)).toEqual(['roc/class2@2', 'roc/class2@1', 'roc/class2@0']);
  });

  it('a cursor continues after the page; exhausted pages are empty; no_scroll gives null', async () => {
    const first = await f.data('events.get_task_plots', { task, iters: 2 });
    const next = await f.data('events.get_task_plots', { task, scroll_id: first.scroll_id });
    expect(next).toEqual({ plots: [], returned: 0, total: 6, scroll_id: expect.any(String) });
    expect((await f.data('events.get_task_plots', { task, no_scroll: true })).scroll_id).toBeNull();
  });

  it('bad, foreign and other-task cursors are 400/1104', async () => {
    const { scroll_id } = await f.data('events.get_task_plots', { task });
    expectError(
      await f.call('events.get_task_plots', { task, scroll_id: `${scroll_id}x` }),
      400,
      1104,
      'Invalid scroll id: scroll_id=',
    );
    expectError(
      await f.call('events.get_task_plots', { task: unique('tp-'), scroll_id }),
      400,
      1104,
      'Invalid scroll id',
    );
    expectError(await f.call('events.get_task_plots', { task, scroll_id }, f.tokenB), 400, 1104, 'Invalid scroll id');
  });

  it('a re-reported plot replaces the old one; an empty task has no plots', async () => {
    const other = unique('tp-');
    await f.add([plot(other, 'm', 'v', 1, { plot_str: '{"v": 1}' })]);
    await plotsVisible(other, 1);
    await f.add([plot(other, 'm', 'v', 1, { plot_str: '{"v": 2}' })]);
    const d = await eventually(
      () => f.data('events.get_task_plots', { task: other }),
      (r) => r.plots[0]?.plot_str === '{"v": 2}',
    );
    expect(d.total).toBe(1);
    const empty = unique('tp-');
    await f.add([{ type: 'log', task: empty, msg: 'x' }]);
    expect(await f.data('events.get_task_plots', { task: empty, no_scroll: true })).toEqual({
      plots: [],
      returned: 0,
      total: 0,
      scroll_id: null,
    });
  });

  it('model events are apart from task events', async () => {
    const id = unique('tpm-');
    await f.add([plot(id, 'm', 'v', 1, { plot_str: '{"of": "task"}' })]);
    await f.add([plot(id, 'm', 'v', 2, { model_event: true, plot_str: '{"of": "model"}' })]);
    await plotsVisible(id, 1, true);
    await plotsVisible(id, 1);
    expect(
      (await f.data('events.get_task_plots', { task: id, model_events: true })).plots.map((p: any) => [
        p.plot_str,
        p.model_event,
      ]),
    ).toEqual([['{"of": "model"}', true]]);
    expect(
      (await f.data('events.get_task_plots', { task: id })).plots.map((p: any) => [p.plot_str, p.model_event]),
    ).toEqual([['{"of": "task"}', false]]);
  });

  it('a multi-megabyte plot (stored compressed) round-trips unchanged', async () => {
    const big = unique('tp-');
    const plotStr = JSON.stringify({ data: Array.from({ length: 40_000 }, (_, i) => ({ x: i, y: Math.sin(i) })) });
    expect(plotStr.length).toBeGreaterThan(1_000_000);
    await f.add([plot(big, 'big', 'v', 0, { plot_str: plotStr })]);
    await plotsVisible(big, 1);
    const [event] = (await f.data('events.get_task_plots', { task: big })).plots;
    expect(event.plot_str).toBe(plotStr);
    expect(event.plot_len).toBe(plotStr.length);
  });

  it('unknown task 400/101; iters 0 400/12', async () => {
    expectError(await f.call('events.get_task_plots', { task: unique('nope-') }), 400, 101, 'Invalid task id');
    expectError(
      await f.call('events.get_task_plots', { task, iters: 0 }),
      400,
      12,
      "Validation error ('0' is lower than minimum ('1').)",
    );
  });
});

describe('events.get_multi_task_plots', () => {
  const p1 = unique('mtp1-');
  const p2 = unique('mtp2-');
  beforeAll(async () => {
    await f.add([
      ...[1, 2, 3].map((i) => plot(p1, 'roc', 'class1', i)),
      plot(p1, 'loss-curve', 'x', 5),
      plot(p1, 'loss-curve', 'x', undefined),
      plot(p2, 'roc', 'class1', 1),
      plot(p2, 'roc', 'class2', 1),
    ]);
    await plotsVisible(p1, 5);
    await plotsVisible(p2, 2);
    await f.redis.hSet(redisKeys(f.h.env.REDIS_KEY_PREFIX!).task(f.company('a'), p2), 'name', 'second run');
  });

  const shape = (plots: Record<string, any>) => {
    const out: string[] = [];
    for (const [metric, variants] of Object.entries(plots)) {
      for (const [variant, entities] of Object.entries(variants as object)) {
        for (const [entity, iterations] of Object.entries(entities as object)) {
          for (const [iter, group] of Object.entries(iterations as object)) {
            out.push(
              `${metric}/${variant}/${entity === p1 ? 'p1' : 'p2'}@${iter}:${group.name === p1 ? 'p1' : group.name}:${group.plots.map((e: any) => e.iter).join(',')}`,
            );
          }
        }
      }
    }
    return out.sort();
  };

  it('latest iteration per task and metric, keyed by metric, variant, task, iteration', async () => {
    const d = await f.data('events.get_multi_task_plots', { tasks: [p1, p2] });
    expect(shape(d.plots)).toEqual([
      'loss-curve/x/p1@5:p1:5',
      'roc/class1/p1@3:p1:3',
      'roc/class1/p2@1:second run:1',
      'roc/class2/p2@1:second run:1',
    ]);
    expect(d.returned).toBe(2);
    expect(d.total).toBe(4);
    expect(d.plots.roc.class1[p1]['3'].plots[0].plot_str).toBe(
      JSON.stringify({ data: [{ x: [3] }], layout: { title: 'roc/class1@3' } }),
    );
  });

  it('last_iters_per_task_metric false: the latest iterations over all metrics of a task', async () => {
    const d = await f.data('events.get_multi_task_plots', { tasks: [p1, p2], last_iters_per_task_metric: false });
    expect(shape(d.plots)).toEqual([
      'loss-curve/x/p1@5:p1:5',
      'roc/class1/p2@1:second run:1',
      'roc/class2/p2@1:second run:1',
    ]);
    expect(d.total).toBe(3);
  });

  it('iters 2, the task alias, a metrics filter', async () => {
    const d = await f.data('events.get_multi_task_plots', { task: [p1], iters: 2, metrics: [{ metric: 'roc' }] });
    expect(shape(d.plots)).toEqual(['roc/class1/p1@2:p1:2', 'roc/class1/p1@3:p1:3']);
    const alias = await f.data('events.get_multi_task_plots', {
      task: p2,
      metrics: [{ metric: 'roc', variants: ['class2'] }],
    });
    expect(shape(alias.plots)).toEqual(['roc/class2/p2@1:second run:1']);
  });

  it('the cursor: total fixed on the first call, exhausted pages empty', async () => {
    const first = await f.data('events.get_multi_task_plots', { tasks: [p1, p2] });
    const next = await f.data('events.get_multi_task_plots', { tasks: [p1, p2], scroll_id: first.scroll_id });
    expect(next).toEqual({ plots: {}, returned: 0, total: 4, scroll_id: expect.any(String) });
    expect((await f.data('events.get_multi_task_plots', { tasks: [p1], no_scroll: true })).scroll_id).toBeNull();
    expectError(
      await f.call('events.get_multi_task_plots', { tasks: [p1], scroll_id: 'garbage' }),
      400,
      1104,
      'Invalid scroll id: scroll_id=garbage',
    );
    expectError(
      await f.call('events.get_multi_task_plots', { tasks: [p1], scroll_id: first.scroll_id }, f.tokenB),
      400,
      1104,
    );
  });

  it('errors: every requested id named; tasks required', async () => {
    const nope = unique('nope-');
    expectError(
      await f.call('events.get_multi_task_plots', { tasks: [p1, nope] }),
      400,
      101,
      `Invalid task id: ids=(${p1}, ${nope})`,
    );
    expectError(
      await f.call('events.get_multi_task_plots', {}),
      400,
      12,
      "Validation error (error for field 'tasks'. field is required!)",
    );
    expectError(
      await f.call('events.get_multi_task_plots', { tasks: [] }),
      400,
      12,
      "Validation error (value '[]' length is lower than allowed minimum '1'.)",
    );
  });
});
