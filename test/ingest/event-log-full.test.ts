// Faults issue, item 2 ("Limits instead of a full disk"): the events stream has a size limit from the
// configuration; a request it cannot take whole is answered 503 with Retry-After before anything of it
// is published (nothing partial), and JetStream's own refusal gets the same answer. Ingest alone runs
// here (no writer), so the stream only fills.
import type { JetStreamManager } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamName } from '../../shared/events/wire-format.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { eventually } from '../harness/eventually.js';

const LIMIT = 256 * 1024;

async function withIngest(
  env: Record<string, string>,
  body: (h: Harness, token: string, jsm: JetStreamManager) => Promise<void>,
): Promise<void> {
  const h = await startHarness({ target: 'ingest', env });
  try {
    const token = await h.login(h.credentials.a);
    const jsm = await h.service.services.stores.nats.connection.jetstreamManager();
    await body(h, token, jsm);
  } finally {
    await h.stop();
  }
}

/** A request naming four tasks (four messages), about 40 KB. */
function request(h: Harness, token: string) {
  const tag = unique('');
  const lines = Array.from({ length: 400 }, (_, i) =>
    JSON.stringify({
      type: 'log',
      task: `full-${tag}-${i % 4}`,
      msg: `${'x'.repeat(80)} ${i}`,
      timestamp: 1_718_000_000_000 + i,
    }),
  );
  return h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: lines.join('\n'),
  });
}

describe('a full event log', () => {
  it(
    'answers 503 with Retry-After before publishing anything of the request, and takes events again once drained',
    { timeout: 60_000 },
    async () => {
      await withIngest({ NATS_STREAM_MAX_BYTES: String(LIMIT) }, async (h, token, jsm) => {
        const stream = streamName(h.env.NATS_STREAM_PREFIX!);
        expect((await jsm.streams.info(stream)).config.max_bytes).toBe(LIMIT);
        let refused;
        for (let i = 0; i < 40 && refused === undefined; i++) {
          const before = (await jsm.streams.info(stream)).state.messages;
          const r = await request(h, token);
          if (r.status === 200) continue;
          refused = r;
          // Nothing of the refused request reached the stream.
          expect((await jsm.streams.info(stream)).state.messages).toBe(before);
        }
        expect(refused, 'the stream never filled').toBeDefined();
        expect(refused!.status).toBe(503);
        expect(refused!.headers['retry-after']).toBe('5');
        expect(refused!.body.meta).toMatchObject({ result_code: 503, result_subcode: 0 });
        expect(refused!.body.meta.result_msg).toMatch(/^Events could not be persisted, retry later \(event log full/);
        expect((await jsm.streams.info(stream)).state.bytes).toBeLessThanOrEqual(LIMIT);

        // The writers catch up (here: the stream is emptied): requests are taken again.
        await jsm.streams.purge(stream);
        const status = await eventually(
          async () => (await request(h, token)).status,
          (s) => s === 200,
          { timeoutMs: 10_000, everyMs: 200, what: 'a 200 once the stream is emptied' },
        );
        expect(status).toBe(200);
      });
    },
  );

  it(
    "JetStream's own refusal (its limit lower than ingest knows) is the same 503 with Retry-After",
    { timeout: 60_000 },
    async () => {
      await withIngest({}, async (h, token, jsm) => {
        const stream = streamName(h.env.NATS_STREAM_PREFIX!);
        const info = await jsm.streams.info(stream);
        await jsm.streams.update(stream, { ...info.config, max_bytes: 64 * 1024 });
        let r = await request(h, token);
        for (let i = 0; i < 10 && r.status === 200; i++) r = await request(h, token);
        expect(r.status).toBe(503);
        expect(r.headers['retry-after']).toBe('5');
        expect(r.body.meta.result_msg).toMatch(/^Events could not be persisted, retry later \(event log full/);
      });
    },
  );

  it('start-up sets the limits of an existing stream to the configured ones', { timeout: 60_000 }, async () => {
    const prefix = `t${unique('')}`;
    await withIngest({ NATS_STREAM_PREFIX: prefix }, async (_h, _t, jsm) => {
      expect((await jsm.streams.info(streamName(prefix))).config.max_bytes).toBe(-1);
    });
    await withIngest(
      { NATS_STREAM_PREFIX: prefix, NATS_STREAM_MAX_BYTES: String(LIMIT), NATS_DUPLICATE_WINDOW_MS: '300000' },
      async (_h, _t, jsm) => {
        const { config } = await jsm.streams.info(streamName(prefix));
        expect([config.max_bytes, config.duplicate_window]).toEqual([LIMIT, 300_000 * 1e6]);
      },
    );
  });
});
