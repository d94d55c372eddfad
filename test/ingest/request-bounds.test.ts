// Hostile-input issue, "Bounded resources": one request cannot make an ingest process hold memory
// outside the in-flight budget. A request naming more distinct entities than
// INGEST_MAX_ENTITIES_PER_REQUEST is refused with 413 while its body is still streaming, nothing of it is
// registered or stored, and the process's memory does not grow (the service runs in this process).
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ target: 'ingest' });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

const MiB = 1024 * 1024;

function memory() {
  const m = process.memoryUsage();
  return { rss: m.rss, held: m.heapUsed + m.external };
}

/** Settled memory: after two full collections, so that only what is still referenced counts. */
function settled() {
  gc();
  gc();
  return memory();
}

describe('distinct entities per request', () => {
  it('a 200,000-entity add_batch is refused with 413 and leaves memory where it was', async () => {
    const prefix = unique('many-');
    const body = Array.from({ length: 200_000 }, (_, i) => JSON.stringify({ type: 'log', task: `${prefix}-${i}`, msg: 'x' })).join('\n');
    const before = settled();
    let peak = memory();
    const sampler = setInterval(() => {
      const now = memory();
      peak = { rss: Math.max(peak.rss, now.rss), held: Math.max(peak.held, now.held) };
    }, 10);
    const r = await h.call('events.add_batch', undefined, { token, headers: { 'content-type': 'application/json-lines' }, rawBody: body });
    clearInterval(sampler);
    const after = settled();
    const figures = {
      peakRssGrowthMiB: (peak.rss - before.rss) / MiB,
      peakHeldGrowthMiB: (peak.held - before.held) / MiB,
      keptRssGrowthMiB: (after.rss - before.rss) / MiB,
      keptHeldGrowthMiB: (after.held - before.held) / MiB,
    };
    console.log(`200,000-entity request: ${JSON.stringify(figures)}`);

    expect(r.status).toBe(413);
    expect(r.body.meta).toMatchObject({
      result_code: 413,
      result_subcode: 0,
      result_msg: `Too many entities in one request (limit ${h.config.INGEST_MAX_ENTITIES_PER_REQUEST} distinct task or model ids)`,
    });
    const redis = h.service.services.stores.redis.client;
    expect(await redis.exists(`${h.env.REDIS_KEY_PREFIX}:task:${prefix}-0`)).toBe(0);
    // Generous bounds, far below the ~1.4 GB this request used to leave behind; the 200,000 parsed
    // lines alone are transient garbage of some tens of MiB.
    expect(figures.peakHeldGrowthMiB).toBeLessThan(150);
    expect(figures.keptHeldGrowthMiB).toBeLessThan(20);
    expect(figures.keptRssGrowthMiB).toBeLessThan(200);
  });

  it('a request within the cap is accepted', async () => {
    const prefix = unique('few-');
    const events = Array.from({ length: 100 }, (_, i) => JSON.stringify({ type: 'log', task: `${prefix}-${i}`, msg: 'x' }));
    const r = await h.call('events.add_batch', undefined, { token, headers: { 'content-type': 'application/json-lines' }, rawBody: events.join('\n') });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ added: 100, errors: 0, errors_info: {} });
  });
});
