/**
 * A crafted id of company B never reads or writes company A's data
 * (hostile-input issue, "Keys that cannot collide"): ids built from another
 * task's id and the store's key syntax (`<task>:lm`, `<task>:1`, ...), sent
 * as events, reads and deletions by B, leave A's task exactly as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';

let f: ServiceFixture;
const victim = unique('victim');

/** What A can read of its task: every log line, latest values, metric listing, raw scalars. */
async function snapshotOfA(): Promise<unknown> {
  const log = await f.data('events.get_task_log', { task: victim, batch_size: 1000 });
  const latest = await f.data('events.get_task_latest_scalar_values', { task: victim });
  const metrics = await f.data('events.get_task_metrics', { tasks: [victim] });
  const raw = await f.data('events.scalar_metrics_iter_raw', {
    task: victim,
    metric: { metric: 'loss', variants: ['train'] },
    batch_size: 100,
  });
  return {
    log: log.events.map((e: any) => [e.msg, e.timestamp]),
    latest: latest.metrics,
    metrics: metrics.metrics,
    raw: raw.variants,
  };
}

beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
  await f.add([
    ...[1, 2, 3].map((iter) => ({
      type: 'training_stats_scalar',
      task: victim,
      metric: 'loss',
      variant: 'train',
      iter,
      value: iter / 10,
    })),
    ...[1, 2, 3].map((i) => ({ type: 'log', task: victim, msg: `secret line ${i}`, timestamp: 1_700_000_000_000 + i })),
  ]);
  await eventually(
    () => f.data('events.get_task_log', { task: victim }),
    (d) => d.total === 3,
  );
}, 120_000);

afterAll(async () => {
  await f?.stop();
});

describe('crafted ids of another company', () => {
  const crafted = [
    `${victim}:lm`,
    `${victim}:mv`,
    `${victim}:1`,
    `${victim}:log`,
    `${victim}:logn`,
    `${victim}:n`,
    `${victim}}:lm`,
    `{t:${victim}}`,
    `${victim}%003alm`,
  ];

  it("never read, change or stall company A's task", { timeout: 120_000 }, async () => {
    const before = await snapshotOfA();

    // B writes events naming every crafted id, as a task and as a model.
    const events = crafted.flatMap((id) => [
      { type: 'log', task: id, msg: `from B to ${id}`, timestamp: 1_700_000_000_010 },
      { type: 'training_stats_scalar', task: id, metric: 'loss', variant: 'train', iter: 2, value: 999 },
      {
        type: 'training_stats_scalar',
        task: id,
        model_event: true,
        metric: 'loss',
        variant: 'train',
        iter: 2,
        value: 999,
      },
    ]);
    const write = await f.h.call('events.add_batch', undefined, {
      token: f.tokenB,
      headers: { 'content-type': 'application/json-lines' },
      rawBody: events.map((e) => JSON.stringify(e)).join('\n'),
    });
    expect([200, 400]).toContain(write.status);

    // Whatever B's ids that were accepted: B reads its own events back (the writer stored them, so
    // nothing is pending that could still reach A), and they are only B's.
    const accepted = write.status === 200 ? crafted : [];
    for (const id of accepted) {
      const log = await eventually(
        () => f.call('events.get_task_log', { task: id }, f.tokenB),
        (r) => r.status !== 200 || r.body.data.total >= 1,
      );
      if (log.status === 200) expect(log.body.data.events.map((e: any) => e.msg)).toEqual([`from B to ${id}`]);
      else expect(log.status).toBe(400);
    }

    // B's reads and deletions of the crafted ids answer B's own data or a 4xx; never A's.
    for (const id of crafted) {
      for (const [operation, body] of [
        ['events.get_task_log', { task: id }],
        ['events.get_task_latest_scalar_values', { task: id }],
        ['events.get_task_metrics', { tasks: [id] }],
        ['events.clear_task_log', { task: id }],
        ['events.delete_for_task', { task: id }],
        ['events.delete_for_model', { model: id }],
      ] as const) {
        const r = await f.call(operation, body, f.tokenB);
        expect(r.status, `${operation} ${id}: ${JSON.stringify(r.body?.meta)}`).toBeLessThan(500);
        expect(JSON.stringify(r.body)).not.toContain('secret line');
      }
    }

    // A's task is untouched, and A's own writes still flow (its partition is not stalled).
    await f.add([{ type: 'log', task: victim, msg: 'after', timestamp: 1_700_000_000_100 }]);
    await eventually(
      () => f.data('events.get_task_log', { task: victim }),
      (d) => d.total === 4,
    );
    const after = (await snapshotOfA()) as { log: unknown[] };
    expect({ ...after, log: after.log.filter((l: any) => l[0] !== 'after') }).toEqual(before);
  });
});
