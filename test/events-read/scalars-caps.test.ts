// The 10000 caps of get_task_single_value_metrics (§4.6) and vector_metrics_iter_histogram (§4.7).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const many = unique('many-sv-');
const few = unique('few-sv-');
const vectors = unique('vectors-');

beforeAll(async () => {
  r = await startServiceFixture();
  const singles = Array.from({ length: 10_001 }, (_, i) =>
    scalar(many, 'Summary', `v${String(i).padStart(5, '0')}`, -2147483648, i),
  );
  // Requests of at most 2000 series: the writer's summary script takes 16 arguments per series of a request.
  for (let i = 0; i < singles.length; i += 2000) await r.add(singles.slice(i, i + 2000));
  await r.add([scalar(few, 'Summary', 'a', -2147483648, 1)]);
  await r.add(
    Array.from({ length: 10_001 }, (_, i) => ({
      type: 'training_stats_vector',
      task: vectors,
      metric: 'w',
      variant: 'l',
      iter: i,
      values: [i, -i],
    })),
  );
  await untilCount(r, many, 10_001, {}, 60_000);
  await untilCount(r, few, 1);
  await untilCount(r, vectors, 10_001, {}, 60_000);
}, 180_000);
afterAll(async () => r?.stop());

describe('caps at 10000', () => {
  it('returns the first 10000 single values in response order', async () => {
    const d = await r.data('events.get_task_single_value_metrics', { tasks: [many, few] });
    expect(d.tasks).toHaveLength(1);
    expect(d.tasks[0].values).toHaveLength(10_000);
    expect(d.tasks[0].values[0]).toMatchObject({ metric: 'Summary', variant: 'v00000', value: 0 });
    expect(d.tasks[0].values.at(-1)).toMatchObject({ variant: 'v09999', value: 9999 });
    const reversed = await r.data('events.get_task_single_value_metrics', { tasks: [few, many] });
    expect(reversed.tasks.map((t: { values: unknown[] }) => t.values.length)).toEqual([1, 9999]);
  });

  it('returns the first 10000 vectors by iteration', async () => {
    const d = await r.data('events.vector_metrics_iter_histogram', { task: vectors, metric: 'w', variant: 'l' });
    expect(d.iterations).toHaveLength(10_000);
    expect(d.iterations.at(-1)).toBe(9999);
    expect(d.vectors[7]).toEqual([7, -7]);
  });
});
