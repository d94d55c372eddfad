// The `all` executable, and `npm start` which runs the same target beside its local stack, run the
// writer on a thread of its own (WRITER_THREAD, issue 14): events are stored and readable, /ready
// and /metrics answer for both threads, each series once, and SIGTERM stops both.
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../deploy/local-stack/local-stack.js';
import { exited, main, runLocal, start, baseEnv } from './launched-process.js';
import { eventually } from '../harness/eventually.js';

const basic = `Basic ${Buffer.from('AK:SK').toString('base64')}`;

async function call(base: string, operation: string, body: unknown) {
  const response = await fetch(`${base}/${operation}`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
}

/** The two ways to run the all target; npm start's runner uses the stores the environment names instead of its own. */
const LAUNCHERS = [
  { name: 'node main.js all', script: main, args: ['all'] },
  { name: 'npm start', script: runLocal, args: [] },
];

async function startAll(launcher: (typeof LAUNCHERS)[number], extra: Record<string, string>) {
  const port = await findFreePort();
  const base = `http://127.0.0.1:${port}`;
  const launched = start(launcher.script, launcher.args, baseEnv({ API_PORT: String(port), GRPC_PORT: '0', ...extra }));
  await eventually(async () => (await fetch(`${base}/ready`)).status === 200, undefined, {
    timeoutMs: 30_000,
    what: `ready\n${launched.output()}`,
    retryErrors: true,
  });
  return { base, ...launched };
}

describe.each(LAUNCHERS)('the all target with its writer thread ($name)', (launcher) => {
  it(
    'stores and reads back, reports both threads in /ready and /metrics, and stops on SIGTERM',
    { timeout: 60_000 },
    async () => {
      const { base, child, output } = await startAll(launcher, {});
      const ready = (await (await fetch(`${base}/ready`)).json()) as { checks: Record<string, string> };
      expect(ready.checks['writer-thread']).toBe('ok');

      const task = `thread-${Date.now()}`;
      const events = Array.from({ length: 50 }, (_, i) => ({
        type: 'log',
        task,
        timestamp: 1_718_000_000_000 + i,
        msg: `line ${i}`,
        level: 'info',
      }));
      expect((await call(base, 'events.add_batch', events)).status).toBe(200);
      let total = 0;
      await eventually(
        async () => {
          const log = await call(base, 'events.get_task_log', { task, batch_size: 100 });
          total = Number(log.body.data.total);
          return total === 50;
        },
        undefined,
        { timeoutMs: 20_000, what: 'the log lines stored by the writer thread', retryErrors: true },
      );

      const metrics = await (await fetch(`${base}/metrics`)).text();
      // The writer's families come from the thread, the process's and ingest's from the main thread.
      expect(metrics).toMatch(/^clearml_writer_partitions_owned\{target="all"\} 8$/m);
      expect(metrics).toMatch(/^process_cpu_seconds_total\{target="all"\} /m);
      expect(metrics).toMatch(/^# TYPE clearml_ingest_/m);
      const types = [...metrics.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
      expect(types.length).toBeGreaterThan(20);
      expect(new Set(types).size).toBe(types.length);

      child.kill('SIGTERM');
      expect(await exited(child)).toBe(0);
      expect(output()).not.toMatch(/"level":(50|60)/);
    },
  );

  it('WRITER_THREAD=false keeps the writer on the main event loop', { timeout: 60_000 }, async () => {
    const { base, child } = await startAll(launcher, { WRITER_THREAD: 'false' });
    const ready = (await (await fetch(`${base}/ready`)).json()) as { checks: Record<string, string> };
    expect(ready.checks['writer-thread']).toBeUndefined();
    expect(Object.keys(ready.checks)).toContain('writer');
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(
      /^clearml_writer_partitions_owned\{target="all"\} 8$/m,
    );
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });
});
