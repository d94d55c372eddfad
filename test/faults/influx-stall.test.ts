// Hostile-input issue item 4: a hung influxd (SIGSTOP: it accepts connections and answers nothing) gives a
// 503 envelope within INFLUX_TIMEOUT_MS for scalar reads (the JSON path and the CSV path), never a hang;
// /ready says so; reads answer again after SIGCONT.
import { describe, expect, it } from 'vitest';
import { unique } from '../harness/service-harness.js';
import { MARGIN_MS, timed, usePrivateServer } from './private-server.js';
import { eventually } from '../harness/eventually.js';

const TIMEOUT_MS = 1_500;
const f = usePrivateServer('influxdb', { INFLUX_TIMEOUT_MS: String(TIMEOUT_MS) });

const scalar = (task: string, iter: number, value: number) => ({
  type: 'training_stats_scalar',
  task,
  iter,
  metric: 'loss',
  variant: 'v',
  value,
});
/** InfluxStore.query (JSON answers). */
const latest = (task: string) => f.h.call('events.get_task_latest_scalar_values', { task }, { token: f.token });
/** InfluxCsvReader (CSV answers, its own fetch). */
const raw = (task: string) =>
  f.h.call('events.scalar_metrics_iter_raw', { task, metric: { metric: 'loss' }, batch_size: 100 }, { token: f.token });

describe('InfluxDB stopped (SIGSTOP)', () => {
  it('answers 503 within the InfluxDB timeout for scalar reads, and answers again after SIGCONT', async () => {
    const task = unique('t-');
    expect((await f.add([scalar(task, 1, 0.5), scalar(task, 2, 0.25)])).status).toBe(200);
    await eventually(
      () => raw(task),
      (r) => r.body?.data?.returned === 2,
      { timeoutMs: 30_000, what: 'scalars stored' },
    );

    f.server.pause();
    try {
      for (const read of [latest, raw]) {
        const answer = await timed(() => read(task));
        expect(answer.result.status).toBe(503);
        expect(answer.result.body.meta).toMatchObject({
          result_code: 503,
          result_subcode: 0,
          result_msg: 'Store unavailable, retry later',
        });
        expect(answer.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      }
      const probe = await fetch(`${f.h.baseUrl}/ready`);
      expect(probe.status).toBe(503);
      expect(((await probe.json()) as { checks: Record<string, string> }).checks.influx).not.toBe('ok');
    } finally {
      f.server.resume();
    }

    const after = await eventually(
      () => latest(task),
      (r) => r.status === 200,
      { timeoutMs: 30_000, what: 'reads answer again' },
    );
    expect(after.body.data.metrics).toEqual([
      { name: 'loss', variants: [{ name: 'v', last_value: 0.25, last_10_value: 0.375, last_100_value: 0.375 }] },
    ]);
    expect((await raw(task)).body.data.returned).toBe(2);
  }, 90_000);
});
