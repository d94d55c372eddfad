// Faults issue item 1 and hostile-input item 4: a hung nats-server (SIGSTOP: the socket stays open, the
// publish sits in the server's socket buffer) gives 503 for add_batch within INGEST_PUBLISH_TIMEOUT_MS, and
// nothing of that request is stored when the server resumes and reads it: a 503 means "not stored".
import { describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import { MARGIN_MS, timed, until, usePrivateServer } from './private-server.js';

const PUBLISH_TIMEOUT_MS = 1_500;
// One host, one clock: no slack needed between the ingest's deadline and JetStream's timestamps.
const f = usePrivateServer('nats', { INGEST_PUBLISH_TIMEOUT_MS: String(PUBLISH_TIMEOUT_MS), PUBLISH_DEADLINE_SLACK_MS: '0' });

const log = (task: string, msg: string) => ({ type: 'log', task, timestamp: Date.now(), level: 'info', msg });
const scalar = (task: string, iter: number, value: number) => ({ type: 'training_stats_scalar', task, iter, metric: 'loss', variant: 'v', value });
const logs = async (task: string) => {
  const r = await f.h.call('events.get_task_log', { task, batch_size: 100, order: 'asc' }, { token: f.token });
  expect(r.status, JSON.stringify(r.body?.meta)).toBe(200);
  return (r.body.data.events as Array<{ msg: string }>).map((e) => e.msg);
};
const iterations = async (task: string) => {
  const r = await f.h.call('events.scalar_metrics_iter_raw', { task, metric: { metric: 'loss' }, batch_size: 100 }, { token: f.token });
  expect(r.status, JSON.stringify(r.body?.meta)).toBe(200);
  return (r.body.data.variants.v?.iter ?? []) as number[];
};

describe('nats-server stopped (SIGSTOP)', () => {
  it('answers 503 within the publish timeout, and nothing of that request is stored after SIGCONT', async () => {
    const task = unique('t-');
    expect((await f.add([log(task, 'before'), scalar(task, 1, 0.5)])).status).toBe(200);
    await until(() => logs(task), (m) => m.length === 1, 30_000, 'first request stored');

    f.server.pause();
    try {
      const during = await timed(() => f.add([log(task, 'during-1'), log(task, 'during-2'), scalar(task, 2, 99)]));
      expect(during.result.status).toBe(503);
      expect(during.result.body.meta).toMatchObject({ result_code: 503, result_subcode: 0, result_msg: 'Events could not be persisted, retry later' });
      expect(during.ms).toBeLessThan(PUBLISH_TIMEOUT_MS + MARGIN_MS);
      expect((await fetch(`${f.h.baseUrl}/ready`)).status).toBe(503);
    } finally {
      f.server.resume();
    }

    // Barrier: a request on the same task goes to the same partition, behind the 503'd message in stream
    // order; once the writer stored it, it has dealt with everything published before it.
    await until(() => f.add([log(task, 'after'), scalar(task, 3, 0.125)]), (r) => r.status === 200, 30_000, 'ingest answers 200 again');
    await until(() => logs(task), (m) => m.includes('after'), 30_000, 'barrier stored');
    expect(await logs(task)).toEqual(['before', 'after']);
    expect(await iterations(task)).toEqual([1, 3]);
    expect((await fetch(`${f.h.baseUrl}/ready`)).status).toBe(200);
  }, 90_000);
});
