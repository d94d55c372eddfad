// Issue 14 item 3, docs/ingest.md "Bounded resources": requests whose records exceed the process's
// memory for them (INGEST_MAX_MEMORY_BYTES) spill to disk while their bodies arrive and are still
// stored whole, in line order, answered only after JetStream has every message; a re-send of such a
// request stores nothing twice (its messages are packed, hence named, as without spilling).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { httpRequest } from '../harness/http-request.js';
import { parsePrometheusText, sampleSum } from '../harness/prometheus-text.js';

let h: Harness;
let token: string;
const KiB = 1024;

beforeAll(async () => {
  h = await startHarness({ target: 'all', env: { INGEST_MAX_MEMORY_BYTES: String(256 * KiB) } });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

const ndjson = (events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n');
const addBatch = (body: string) =>
  h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: body,
  });

async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
  const response = await httpRequest(`${h.baseUrl}/metrics`);
  return sampleSum(parsePrometheusText(response.text), name, labels);
}

type Scalar = { iter: number; value: number };

/** Scalars of a task once `n` are readable and `done` holds (a read may show part of a request, events.md §2). */
async function scalarsOf(task: string, n: number, done: (events: Scalar[]) => boolean = () => true): Promise<Scalar[]> {
  const read = async () => {
    const r = await h.call(
      'events.get_task_events',
      { task, event_type: 'training_stats_scalar', batch_size: 10_000 },
      { token },
    );
    expect(r.status).toBe(200);
    return r.body.data.events as Scalar[];
  };
  return eventually(read, (events) => events.length >= n && done(events), {
    timeoutMs: 30_000,
    what: `${n} scalars of ${task}`,
  });
}

async function logCount(task: string, n: number): Promise<number> {
  const read = async () => {
    const r = await h.call('events.get_task_log', { task, batch_size: 10_000, navigate_earlier: false }, { token });
    expect(r.status).toBe(200);
    return r.body.data.events.length as number;
  };
  return eventually(read, (count) => count >= n, { timeoutMs: 30_000, what: `${n} log lines of ${task}` });
}

/** Two tasks, each 4,000 scalars reported twice (the second report wins: line order) and 2,000 log lines: ~2.5 MB of records. */
function body(prefix: string) {
  const tasks = [`${prefix}-a`, `${prefix}-b`];
  const events: unknown[] = [];
  for (const task of tasks) {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 4000; i++)
        events.push({
          type: 'training_stats_scalar',
          task,
          metric: 'loss',
          variant: `variant-${i % 7}`,
          iter: i,
          value: round * 1000 + i,
        });
    }
    for (let i = 0; i < 2000; i++)
      events.push({ type: 'log', task, msg: `line ${i} ${'x'.repeat(100)}`, timestamp: 1_718_000_000_000 + i });
  }
  return { tasks, text: ndjson(events) };
}

describe('requests beyond the process memory spill to disk and are stored whole', () => {
  it('four concurrent 2.5 MB requests under 256 KiB of memory: all answered 200, every event stored, the later report winning', async () => {
    const spilledBefore = await metric('clearml_ingest_spilled_bytes_total');
    const bodies = Array.from({ length: 4 }, () => body(unique('spill-')));
    const answers = await Promise.all(bodies.map((b) => addBatch(b.text)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    for (const a of answers) expect(a.body.data).toEqual({ added: 2 * 10_000, errors: 0, errors_info: {} });
    expect(await metric('clearml_ingest_spilled_bytes_total')).toBeGreaterThan(spilledBefore + 4 * 1024 * KiB);
    for (const task of bodies.flatMap((b) => b.tasks)) {
      const secondReport = (events: Scalar[]) => events.every((e) => e.value === 1000 + e.iter);
      const scalars = await scalarsOf(task, 4000, secondReport);
      expect(scalars.length).toBe(4000);
      expect(scalars.filter((e) => !secondReport([e])).slice(0, 3)).toEqual([]);
      expect(await logCount(task, 2000)).toBe(2000);
    }
  });

  it('a spilled request re-sent byte for byte stores nothing twice', async () => {
    const b = body(unique('spill-again-'));
    const messages = (result: string) => metric('clearml_ingest_jetstream_messages_total', { result });
    const ackedBefore = await messages('acked');
    expect((await addBatch(b.text)).status).toBe(200);
    const sent = (await messages('acked')) - ackedBefore;
    // Several messages (a task's records exceed the memory for them: they spilled), each new.
    expect(sent).toBeGreaterThanOrEqual(2);
    const duplicatesBefore = await messages('duplicate');
    expect((await addBatch(b.text)).status).toBe(200);
    // Every message of the re-send carried an id JetStream already had.
    expect((await messages('duplicate')) - duplicatesBefore).toBe(sent);
    // A barrier: a later log line of the same task is stored after anything of the re-send.
    expect(
      (await addBatch(ndjson([{ type: 'log', task: b.tasks[0], msg: 'barrier', timestamp: 1_900_000_000_000 }])))
        .status,
    ).toBe(200);
    expect(await logCount(b.tasks[0]!, 2001)).toBe(2001);
    expect((await scalarsOf(b.tasks[0]!, 4000)).length).toBe(4000);
  });
});
