// Issue 14 item 3, docs/ingest.md "Bounded resources": an ingest process asks V8 for a full
// collection once its buffer memory grew by INGEST_GC_EXTERNAL_GROWTH_BYTES while it holds
// requests, so the dead buffers of large bodies are freed while they arrive (the requests are
// stored whole meanwhile). Going idle collects nothing (unit tests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { httpRequest } from '../harness/http-request.js';
import { parsePrometheusText, sampleSum } from '../harness/prometheus-text.js';

let h: Harness;
let token: string;
const MiB = 1024 * 1024;

beforeAll(async () => {
  h = await startHarness({ target: 'ingest', env: { INGEST_GC_EXTERNAL_GROWTH_BYTES: String(2 * MiB) } });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const response = await httpRequest(`${h.baseUrl}/metrics`);
  return sampleSum(parsePrometheusText(response.text), name, labels);
}

/** One task's 20,000 scalars: ~2.5 MB of NDJSON. */
function body(task: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++)
    lines.push(
      JSON.stringify({ type: 'training_stats_scalar', task, metric: 'loss', variant: `v${i % 10}`, iter: i, value: i }),
    );
  return lines.join('\n');
}

describe('full collections for dead buffers', () => {
  it('large bodies arriving make the process collect, counted in its metrics, and every event is acknowledged', async () => {
    const before = await metric('clearml_ingest_buffer_collections_total');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        h.call('events.add_batch', undefined, {
          token,
          headers: { 'content-type': 'application/json-lines' },
          rawBody: body(unique('gc-')),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const a of answers) expect(a.body.data).toEqual({ added: 20_000, errors: 0, errors_info: {} });
    const after = await eventually(
      () => metric('clearml_ingest_buffer_collections_total'),
      (count) => count > before,
      { timeoutMs: 10_000, what: 'a full collection for dead buffers' },
    );
    expect(after).toBeGreaterThan(before);
    expect(await metric('clearml_ingest_buffer_collection_seconds_total')).toBeGreaterThan(0);
  });
});
