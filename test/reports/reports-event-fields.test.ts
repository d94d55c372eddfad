// Fields that event writes maintain on a report (reports.md §6: last_iteration, last_metrics,
// last_update, ...) read through get_all_ex's cached records: as soon as the writer stored them,
// the next get_all_ex shows them, as get_task_data (which reads the record fresh) does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { unique } from '../harness/service-harness.js';
import { addEvents, startReportsFixture, type ReportsFixture } from './reports-fixture.js';

let f: ReportsFixture;
beforeAll(async () => {
  f = await startReportsFixture();
});
afterAll(async () => f?.stop());

describe('event-maintained report fields in get_all_ex', () => {
  it('are read at once once the writer stored them, with no stale window', async () => {
    const report = (await f.ok('reports.create', { name: unique('event fields ') })).id;
    const listed = async () =>
      (
        await f.ok('reports.get_all_ex', {
          id: [report],
          only_fields: ['last_iteration', 'last_metrics', 'last_update'],
        })
      ).tasks[0];
    // Warm the cache of the company: the rounds below read through it.
    expect((await listed()).last_iteration).toBeUndefined();
    for (let iter = 1; iter <= 5; iter++) {
      expect(
        (
          await addEvents(f, [
            { type: 'training_stats_scalar', task: report, iter, metric: 'm', variant: 'v', value: iter * 10 },
          ])
        ).added,
      ).toBe(1);
      const stored = await eventually(
        async () =>
          (
            await f.ok('reports.get_task_data', {
              id: [report],
              only_fields: ['last_iteration', 'last_metrics', 'last_update'],
            })
          ).tasks[0],
        (r: any) => r?.last_iteration === iter,
      );
      const read = await listed();
      expect(read.last_iteration).toBe(iter);
      expect(read.last_update).toBe(stored.last_update);
      const [stats] = Object.values(read.last_metrics as Record<string, Record<string, any>>).flatMap((v) =>
        Object.values(v),
      );
      expect(stats).toMatchObject({ metric: 'm', variant: 'v', value: iter * 10, count: iter });
    }
  });

  it('a task receiving events leaves the report change log alone (no report read pays for task events)', async () => {
    const task = unique('plaintask');
    const before = await f.redis.get(f.keys.reportVersion(f.companyA));
    expect(
      (await addEvents(f, [{ type: 'training_stats_scalar', task, iter: 1, metric: 'm', variant: 'v', value: 1 }]))
        .added,
    ).toBe(1);
    // The barrier: the summary that would have logged a change is applied once the task shows it.
    await eventually(
      async () => (await f.ok('reports.get_task_data', { id: [task], only_fields: ['last_iteration'] })).tasks[0],
      (r: any) => r?.last_iteration === 1,
    );
    expect(await f.redis.get(f.keys.reportVersion(f.companyA))).toBe(before);
    expect(await f.redis.zScore(f.keys.reportChanges(f.companyA), task)).toBeNull();
  });
});
