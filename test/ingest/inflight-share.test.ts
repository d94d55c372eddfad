// The in-flight budget shared between companies (docs/ingest.md, "Bounded resources"): a company's requests together
// hold at most a quarter of INGEST_MAX_INFLIGHT_BYTES; its request that would pass the share while another of its
// requests holds bytes gets 429 ingest_overloaded with Retry-After, and the other companies' requests are taken. A
// request alone in its company may go past the share. Company A's requests here send their events and then stall,
// holding what they parsed until their connection ends, as slow or stuck clients do.
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

const MiB = 1024 * 1024;
/** One-event entities: ~3.4 KB of the budget each (2 KiB of state, buffers, summary), so 450 hold ~1.5 MiB. */
const ENTITIES = 450;

let h: Harness;
let tokenA: string;
let tokenB: string;
beforeAll(async () => {
  // 8 MiB in all, 2 MiB a company.
  h = await startHarness({ target: 'ingest', env: { INGEST_MAX_INFLIGHT_BYTES: String(8 * MiB) } });
  [tokenA, tokenB] = await Promise.all([h.login(h.credentials.a), h.login(h.credentials.b)]);
});
afterAll(() => h?.stop());

const lines = (count: number) => {
  const prefix = unique('share-');
  return Array.from({ length: count }, (_, i) => JSON.stringify({ type: 'log', task: `${prefix}-${i}`, msg: 'x' }));
};

interface Stalled {
  /** The answer, if one comes before the connection ends. */
  answer: Promise<{ status: number; body: any; retryAfter?: string }>;
  end(): void;
}

/** An add_batch whose body sends `count` events and then neither goes on nor ends. */
function stalledRequest(token: string, count: number): Stalled {
  const request = http.request(`${h.baseUrl}/events.add_batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json-lines' },
  });
  const answer = new Promise<{ status: number; body: any; retryAfter?: string }>((resolve, reject) => {
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          retryAfter: response.headers['retry-after'],
        }),
      );
    });
    request.on('error', reject);
  });
  answer.catch(() => undefined);
  request.write(`${lines(count).join('\n')}\n`);
  return { answer, end: () => request.destroy() };
}

async function inflightBytes(): Promise<number> {
  const metric = await h.service.services.metrics.getSingleMetric('clearml_ingest_inflight_bytes')!.get();
  return metric.values[0]!.value;
}

const addBatch = (token: string, count: number) =>
  h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: lines(count).join('\n'),
  });

it("a company's stalled requests hold at most its share: its next is refused with 429, another company's is taken", async () => {
  const first = stalledRequest(tokenA, ENTITIES);
  await eventually(inflightBytes, (bytes) => bytes > 1.4 * MiB, { what: "A's first request holding its events" });
  const more = [stalledRequest(tokenA, ENTITIES), stalledRequest(tokenA, ENTITIES), stalledRequest(tokenA, ENTITIES)];
  try {
    for (const request of more) {
      const refused = await request.answer;
      expect(refused.status, JSON.stringify(refused.body.meta)).toBe(429);
      expect(refused.body.meta.result_msg).toBe(
        "Too many events in flight, retry later (the company's share of INGEST_MAX_INFLIGHT_BYTES)",
      );
      expect(refused.retryAfter).toBe('1');
    }
    // Before, A's four requests held ~6 MiB of the 8 and this one was refused.
    const taken = await addBatch(tokenB, ENTITIES);
    expect(taken.status, JSON.stringify(taken.body.meta)).toBe(200);
    expect(taken.body.data.added).toBe(ENTITIES);
  } finally {
    for (const request of [first, ...more]) request.end();
  }
  await eventually(inflightBytes, (bytes) => bytes === 0, { what: 'the budget given back' });
});

it('a request alone in its company may hold more than the share', async () => {
  // ~2.4 MiB: past the 2 MiB share, within the 8 MiB budget.
  const alone = await addBatch(tokenA, 700);
  expect(alone.status, JSON.stringify(alone.body.meta)).toBe(200);
  expect(alone.body.data.added).toBe(700);
});
