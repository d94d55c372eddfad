// Hostile-input issue, item 1: one JetStream message is the largest thing the event log takes, so an
// event whose stored form exceeds it (a plot that does not compress, or any plot when compression is
// off) is rejected per event, like every other store limit: its siblings are stored and readable.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';

const TOO_LARGE = /^Event larger than the event log's message limit \(\d+ bytes\)$/;

/** ~9 MiB of text deflate cannot shrink below the 8 MiB messages of the local stack once base64-encoded. */
const incompressible = () => randomBytes(7 * 1024 * 1024).toString('base64');
/** ~9 MiB that deflates to almost nothing. */
const compressible = () => JSON.stringify({ data: [{ x: new Array(1_500_000).fill(1) }] });

async function sendAndRead(h: Harness, token: string, plotStr: string) {
  const task = unique('size-');
  const lines = [
    { type: 'plot', task, iter: 1, metric: 'huge', variant: 'v', plot_str: plotStr },
    { type: 'plot', task, iter: 1, metric: 'small', variant: 'v', plot_str: '{"data": []}' },
    { type: 'training_stats_scalar', task, iter: 1, metric: 'loss', variant: 'v', value: 0.5 },
  ].map((e) => JSON.stringify(e));
  const r = await h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: lines.join('\n'),
  });
  const events = await eventually(
    async () =>
      ((await h.call('events.get_task_events', { task, batch_size: 100 }, { token })).body.data?.events ?? []) as Array<
        Record<string, unknown>
      >,
    (e) => e.length >= 2,
    { what: 'the small plot and the scalar' },
  );
  return { r, events };
}

describe.each([
  ['plots compressed from the threshold on (the default)', '100000'],
  ['plot compression off', '0'],
])('%s', (_what, threshold) => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ target: 'all', env: { PLOT_COMPRESSION_THRESHOLD: threshold } });
    token = await h.login(h.credentials.a);
  });
  afterAll(() => h?.stop());

  it('a plot whose stored form exceeds one message is rejected alone', async () => {
    const { r, events } = await sendAndRead(h, token, incompressible());
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ added: 2, errors: 1 });
    const [reason] = Object.keys(r.body.data.errors_info);
    expect(reason).toMatch(TOO_LARGE);
    expect(events.map((e) => e.metric).sort()).toEqual(['loss', 'small']);
  });

  if (threshold !== '0') {
    it('a summary larger than one message (1,500 series of 8 KB names) is split, and every series reaches the record', async () => {
      const task = unique('wide-');
      const name = (i: number, c: string) => `${i}-${c.repeat(4090)}`;
      const lines = Array.from({ length: 1500 }, (_, i) =>
        JSON.stringify({
          type: 'training_stats_scalar',
          task,
          iter: 1,
          metric: name(i, 'm'),
          variant: name(i, 'v'),
          value: i,
        }),
      );
      const r = await h.call('events.add_batch', undefined, {
        token,
        headers: { 'content-type': 'application/json-lines' },
        rawBody: lines.join('\n'),
      });
      expect(r.body.data).toEqual({ added: 1500, errors: 0, errors_info: {} });
      const metrics: Record<string, string[]> = await eventually(
        async () => (await h.call('events.get_scalar_metrics_and_variants', { task }, { token })).body.data.metrics,
        (m) => Object.keys(m).length >= 1500,
        { timeoutMs: 30_000, everyMs: 200, what: '1500 series in the record' },
      );
      expect(Object.keys(metrics)).toHaveLength(1500);
      expect(metrics[name(7, 'm')]).toEqual([name(7, 'v')]);
    });

    it('a plot of the same size that compresses is stored', async () => {
      const { r, events } = await sendAndRead(h, token, compressible());
      expect(r.body.data).toEqual({ added: 3, errors: 0, errors_info: {} });
      expect(events.length).toBeGreaterThanOrEqual(2);
    });
  }
});
