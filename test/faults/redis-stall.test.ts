// Hostile-input issue item 4: a hung Redis (SIGSTOP: its socket stays open, nothing answers) gives a 503
// envelope within REDIS_COMMAND_TIMEOUT_MS for ingest and for reads, never a hang; /ready says so; and the
// service recovers by itself after SIGCONT.
import { describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import { MARGIN_MS, timed, usePrivateServer } from './private-server.js';
import { eventually } from '../harness/eventually.js';

const TIMEOUT_MS = 1_000;
const f = usePrivateServer('redis', { REDIS_COMMAND_TIMEOUT_MS: String(TIMEOUT_MS) });

const addLog = (task: string, msg: string) => f.add([{ type: 'log', task, timestamp: Date.now(), level: 'info', msg }]);
const read = (task: string) => f.h.call('events.get_task_log', { task, batch_size: 10 }, { token: f.token });
const reports = () => f.h.call('reports.get_all_ex', { only_fields: ['id'] }, { token: f.token });
const ready = async () => {
  const response = await fetch(`${f.h.baseUrl}/ready`);
  return { status: response.status, body: (await response.json()) as { checks: Record<string, string> } };
};

describe('Redis stopped (SIGSTOP)', () => {
  it('answers 503 within the command timeout for ingest, a log read and a report read, and recovers after SIGCONT', async () => {
    const task = unique('t-');
    expect((await addLog(task, 'before')).status).toBe(200);
    await eventually(
      () => read(task),
      (r) => r.body?.data?.total === 1,
      { timeoutMs: 30_000, what: 'log line stored' },
    );
    expect((await reports()).status).toBe(200);

    f.server.pause();
    try {
      const ingest = await timed(() => addLog(task, 'during'));
      expect(ingest.result.status).toBe(503);
      expect(ingest.result.body.meta).toMatchObject({
        result_code: 503,
        result_subcode: 0,
        result_msg: 'Events could not be persisted, retry later',
      });
      expect(ingest.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);

      for (const call of [() => read(task), reports]) {
        const answer = await timed(call);
        expect(answer.result.status).toBe(503);
        expect(answer.result.body.meta).toMatchObject({
          result_code: 503,
          result_subcode: 0,
          result_msg: 'Store unavailable, retry later',
        });
        expect(answer.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      }

      const probe = await timed(ready);
      expect(probe.result.status).toBe(503);
      expect(probe.result.body.checks.redis).not.toBe('ok');
      expect(probe.ms).toBeLessThan(f.h.config.READY_TIMEOUT_MS + MARGIN_MS);
    } finally {
      f.server.resume();
    }

    await eventually(
      () => addLog(task, 'after'),
      (r) => r.status === 200,
      { timeoutMs: 30_000, what: 'ingest answers 200 again' },
    );
    const after = await eventually(
      () => read(task),
      (r) => r.status === 200 && r.body.data.events.some((e: { msg: string }) => e.msg === 'after'),
      { timeoutMs: 30_000, what: 'log read sees the new line' },
    );
    const msgs = after.body.data.events.map((e: { msg: string }) => e.msg);
    expect(msgs).toContain('before');
    // The 503'd line was never published: the line after it (same task, same partition) is the barrier.
    expect(msgs).not.toContain('during');
    expect((await reports()).status).toBe(200);
    expect((await ready()).status).toBe(200);
  }, 90_000);
});
