// Listing metrics (events.md §3): get_task_metrics, get_multi_task_metrics,
// get_scalar_metrics_and_variants, get_vector_metrics_and_variants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const t1 = unique('t1-');
const t2 = unique('t2-');
const empty = unique('empty-');

beforeAll(async () => {
  r = await startServiceFixture();
  await r.add([
    scalar(t1, 'loss', 'train', 0, 1),
    scalar(t1, 'loss', 'val', 0, 2),
    scalar(t1, 'Summary', 'accuracy', -2147483648, 0.9),
    scalar(t1, 'noiter', 'x', undefined, 3),
    { type: 'training_stats_vector', task: t1, metric: 'weights', variant: 'layer1', iter: 1, values: [1, 2] },
    {
      type: 'training_debug_image',
      task: t1,
      metric: 'samples',
      variant: 'input',
      iter: 2,
      url: 'http://x/a.png',
      key: 'a.png',
    },
    { type: 'plot', task: t1, metric: 'roc', variant: 'c1', plot_str: '{}' },
    { type: 'log', task: t1, msg: 'hello' },
    scalar(t2, 'lr', '', 5, 0.1),
    scalar(t2, 'loss', 'test', 5, 0.1),
  ]);
  // The same id as a model (a request of its own: one request may not use an id both ways).
  await r.add([scalar(t1, 'model-only', 'm', 1, 1, { model_event: true })]);
  // A model with a scalar only: nothing of type plot.
  await r.add([scalar(empty, 'x', 'y', 1, 1, { model_event: true })]);
  await untilCount(r, t1, 8);
  await untilCount(r, t2, 2);
  await untilCount(r, t1, 1, { model_events: true });
}, 60_000);
afterAll(async () => r?.stop());

describe('events.get_task_metrics', () => {
  it('lists metrics with a regular iteration per task, in request order, ascending', async () => {
    const d = await r.data('events.get_task_metrics', { tasks: [t2, t1] });
    expect(d.metrics).toEqual([
      { task: t2, metrics: ['loss', 'lr'] },
      // Summary (single value), noiter, roc (no iteration) and the log are left out.
      { task: t1, metrics: ['loss', 'samples', 'weights'] },
    ]);
  });

  it('filters by event type and accepts the task alias', async () => {
    const d = await r.data('events.get_task_metrics', { task: [t1], event_type: 'training_debug_image' });
    expect(d.metrics).toEqual([{ task: t1, metrics: ['samples'] }]);
    const one = await r.data('events.get_task_metrics', { task: t1, event_type: 'training_stats_vector' });
    expect(one.metrics).toEqual([{ task: t1, metrics: ['weights'] }]);
  });

  it('keeps model events apart from task events under the same id', async () => {
    const d = await r.data('events.get_task_metrics', { tasks: [t1], model_events: true });
    expect(d.metrics).toEqual([{ task: t1, metrics: ['model-only'] }]);
  });

  it('answers once per distinct id, an empty list when nothing matches', async () => {
    const m = await r.data('events.get_task_metrics', {
      tasks: [empty, empty],
      model_events: true,
      event_type: 'plot',
    });
    expect(m.metrics).toEqual([{ task: empty, metrics: [] }]);
    // `empty` exists only as a model: as a task it is unknown.
    const asTask = await r.call('events.get_task_metrics', { tasks: [empty] });
    expect(asTask.body.meta.result_subcode).toBe(101);
  });

  it('names every requested id when one is unknown (400/101, 400/201)', async () => {
    const res = await r.call('events.get_task_metrics', { tasks: [t1, 'nope-1', t2] });
    expect(res.status).toBe(400);
    expect(res.body.meta.result_subcode).toBe(101);
    expect(res.body.meta.result_msg).toBe(`Invalid task id: ids=(${t1}, nope-1, ${t2})`);
    const model = await r.call('events.get_task_metrics', { tasks: ['nope-2'], model_events: true });
    expect(model.body.meta.result_subcode).toBe(201);
    expect(model.body.meta.result_msg).toBe('Invalid model id: ids=(nope-2)');
  });

  it("treats another company's task as unknown", async () => {
    const res = await r.call('events.get_task_metrics', { tasks: [t1] }, r.tokenB);
    expect(res.body.meta.result_subcode).toBe(101);
  });

  it('validates tasks and event_type', async () => {
    const none = await r.call('events.get_task_metrics', {});
    expect(none.body.meta.result_msg).toBe("Validation error (error for field 'tasks'. field is required!)");
    const emptyList = await r.call('events.get_task_metrics', { tasks: [] });
    expect(emptyList.body.meta.result_msg).toBe(
      "Validation error (value '[]' length is lower than allowed minimum '1'.)",
    );
    const badType = await r.call('events.get_task_metrics', { tasks: [t1], event_type: 'scalar' });
    expect(badType.body.meta.result_msg).toBe(`Validation error (value is wrong, expected type "eventtype" 'scalar')`);
  });
});

describe('events.get_multi_task_metrics', () => {
  it('unions metrics and variants of every event, logs and single values included', async () => {
    const d = await r.data('events.get_multi_task_metrics', { tasks: [t1, t2] });
    expect(d.metrics).toEqual([
      { metric: '', variants: [''] },
      { metric: 'Summary', variants: ['accuracy'] },
      { metric: 'loss', variants: ['test', 'train', 'val'] },
      { metric: 'lr', variants: [''] },
      { metric: 'noiter', variants: ['x'] },
      { metric: 'roc', variants: ['c1'] },
      { metric: 'samples', variants: ['input'] },
      { metric: 'weights', variants: ['layer1'] },
    ]);
  });

  it('filters by event type', async () => {
    const d = await r.data('events.get_multi_task_metrics', { task: [t1, t2], event_type: 'training_stats_scalar' });
    expect(d.metrics.map((m: { metric: string }) => m.metric)).toEqual(['Summary', 'loss', 'lr', 'noiter']);
  });
});

describe('events.get_scalar_metrics_and_variants / get_vector_metrics_and_variants', () => {
  it('maps scalar metrics to variants, single values included', async () => {
    const d = await r.data('events.get_scalar_metrics_and_variants', { task: t1 });
    expect(d.metrics).toEqual({ Summary: ['accuracy'], loss: ['train', 'val'], noiter: ['x'] });
    expect(Object.keys(d.metrics)).toEqual(['Summary', 'loss', 'noiter']);
  });

  it('maps vector metrics, and answers {} for none', async () => {
    expect((await r.data('events.get_vector_metrics_and_variants', { task: t1 })).metrics).toEqual({
      weights: ['layer1'],
    });
    expect((await r.data('events.get_vector_metrics_and_variants', { task: t2 })).metrics).toEqual({});
    expect((await r.data('events.get_scalar_metrics_and_variants', { task: t1, model_events: true })).metrics).toEqual({
      'model-only': ['m'],
    });
  });

  it('requires task', async () => {
    const res = await r.call('events.get_scalar_metrics_and_variants', {});
    expect(res.body.meta.result_msg).toBe("Validation error (error for field 'task'. field is required!)");
  });
});
