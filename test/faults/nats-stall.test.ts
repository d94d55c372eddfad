// Faults issue items 1 and 4, hostile-input item 4: a hung nats-server (SIGSTOP: the socket stays open, the
// publish sits in the server's socket buffer) gives 503 for add_batch within INGEST_PUBLISH_TIMEOUT_MS. The
// request may already be in the server's hands (it stores it when it resumes); the client re-sends it, as the
// ClearML SDK does with a 503, and every event of it ends up stored exactly once, the re-sends made during the
// stall included.
import { describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import { MARGIN_MS, timed, usePrivateServer } from './private-server.js';
import { eventually } from '../harness/eventually.js';

const PUBLISH_TIMEOUT_MS = 1_500;
const f = usePrivateServer('nats', { INGEST_PUBLISH_TIMEOUT_MS: String(PUBLISH_TIMEOUT_MS) });

const log = (task: string, msg: string, timestamp: number) => ({ type: 'log', task, timestamp, level: 'info', msg });
const scalar = (task: string, iter: number, value: number) => ({
  type: 'training_stats_scalar',
  task,
  iter,
  metric: 'loss',
  variant: 'v',
  value,
});
const logs = async (task: string) => {
  const r = await f.h.call('events.get_task_log', { task, batch_size: 100, order: 'asc' }, { token: f.token });
  expect(r.status, JSON.stringify(r.body?.meta)).toBe(200);
  return (r.body.data.events as Array<{ msg: string }>).map((e) => e.msg);
};
const iterations = async (task: string) => {
  const r = await f.h.call(
    'events.scalar_metrics_iter_raw',
    { task, metric: { metric: 'loss' }, batch_size: 100 },
    { token: f.token },
  );
  expect(r.status, JSON.stringify(r.body?.meta)).toBe(200);
  return (r.body.data.variants.v?.iter ?? []) as number[];
};

describe('nats-server stopped (SIGSTOP)', () => {
  it('answers 503 within the publish timeout; the re-sent request is stored exactly once after SIGCONT', async () => {
    const task = unique('t-');
    const at = Date.now();
    expect((await f.add([log(task, 'before', at), scalar(task, 1, 0.5)])).status).toBe(200);
    await eventually(
      () => logs(task),
      (m) => m.length === 1,
      { timeoutMs: 30_000, what: 'first request stored' },
    );

    const during = [log(task, 'during-1', at + 1), log(task, 'during-2', at + 2), scalar(task, 2, 99)];
    f.server.pause();
    try {
      // The first attempt and a re-send while the server is still stopped: both reach its socket.
      for (let attempt = 0; attempt < 2; attempt++) {
        const answer = await timed(() => f.add(during));
        expect(answer.result.status).toBe(503);
        expect(answer.result.body.meta).toMatchObject({
          result_code: 503,
          result_subcode: 0,
          result_msg: 'Events could not be persisted, retry later',
        });
        expect(answer.ms).toBeLessThan(PUBLISH_TIMEOUT_MS + MARGIN_MS);
      }
      expect((await fetch(`${f.h.baseUrl}/ready`)).status).toBe(503);
    } finally {
      f.server.resume();
    }

    // The client keeps re-sending until it gets its 200.
    await eventually(
      () => f.add(during),
      (r) => r.status === 200,
      { timeoutMs: 30_000, what: 'the re-sent request is acknowledged' },
    );
    // Barrier: a later request on the same task goes to the same partition, behind every copy in stream order.
    expect((await f.add([log(task, 'after', at + 3), scalar(task, 3, 0.125)])).status).toBe(200);
    await eventually(
      () => logs(task),
      (m) => m.includes('after'),
      { timeoutMs: 30_000, what: 'barrier stored' },
    );
    expect(await logs(task)).toEqual(['before', 'during-1', 'during-2', 'after']);
    expect(await iterations(task)).toEqual([1, 2, 3]);
    expect((await fetch(`${f.h.baseUrl}/ready`)).status).toBe(200);
  }, 90_000);
});
