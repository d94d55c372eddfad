// events.md §2.2 and protocol.md §6: JetStream unavailable → 503/0 with nothing claimed, /ready fails,
// and the service recovers by itself when JetStream returns (same port, same data).
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findFreePort, startLocalStack, type LocalStack } from '../../deploy/local-stack/local-stack.js';
import '../harness/stack-context.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';

let nats: LocalStack;
let natsPort: number;
let natsDir: string;
let h: Harness;
let token: string;

async function startPrivateNats(): Promise<LocalStack> {
  const shared = inject('stack');
  return startLocalStack({
    dataDir: natsDir,
    natsPort,
    existing: { influxUrl: shared.influxUrl, redisUrl: shared.redisUrl },
  });
}

beforeAll(async () => {
  natsPort = await findFreePort();
  natsDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-nats-outage-'));
  nats = await startPrivateNats();
  h = await startHarness({ target: 'ingest', env: { NATS_URL: nats.natsUrl, INGEST_PUBLISH_TIMEOUT_MS: '1500' } });
  token = await h.login(h.credentials.a);
}, 120_000);
afterAll(async () => {
  await h?.stop();
  await nats?.stop();
});

const send = (task: string) =>
  h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: JSON.stringify({ type: 'training_stats_scalar', task, iter: 1, metric: 'm', variant: 'v', value: 1 }),
  });

const ready = async () => (await fetch(`${h.baseUrl}/ready`)).status;

describe('JetStream outage', () => {
  it('answers 503/0 while JetStream is down and recovers by itself when it returns', async () => {
    expect((await send(unique('t-'))).status).toBe(200);
    expect(await ready()).toBe(200);

    await nats.stop();
    const during = await send(unique('t-'));
    expect(during.status).toBe(503);
    expect(during.body.meta).toMatchObject({
      result_code: 503,
      result_subcode: 0,
      result_msg: 'Events could not be persisted, retry later',
    });
    expect(await ready()).toBe(503);

    nats = await startPrivateNats();
    const status = await eventually(
      async () => (await send(unique('t-'))).status,
      (s) => s === 200,
      { timeoutMs: 30_000, everyMs: 250, what: 'a 200 after NATS is back' },
    );
    expect(status).toBe(200);
    expect(await ready()).toBe(200);
  }, 90_000);
});
