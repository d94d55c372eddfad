// Hostile-input issue, item 1: every event the ingest door accepts is one the real stores take.
// Generated hostile events go through the normaliser and the encoder; each accepted point is
// written to the suite's InfluxDB (each write must succeed, and every series must read back under
// its own names), and each accepted log line is appended to a Redis stream with the id the writer
// gives it. The grammar check of the unit property test, confirmed against influxd and Redis.
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import '../harness/stack-context.js';
import { normalizeEvent, type NormalizedEvent } from '../../ingest/events/event-normalizer.js';
import { hostileEvent, mostlyValidEvent } from '../../ingest/events/hostile-event-test-harness.js';
import { encodeAccepted } from '../../ingest/events/storable-event-test-harness.js';
import { decodeTagValue, MEASUREMENT, PLOT_BODY_MEASUREMENT } from '../../shared/events/storage-layout.js';
import { pointWithSeq, type LogRecord } from '../../shared/events/wire-format.js';
import { checkLogBody } from '../../ingest/writer/record-checks.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';

const context = { receivedAt: 1_718_000_000_000, defaultWorker: 'node-7', allowLockedDefault: false };
let influx: InfluxStore;
let redis: ReturnType<typeof createClient>;
const prefix = `acc${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  const stack = inject('stack');
  influx = new InfluxStore({ url: stack.influxUrl, database: prefix });
  await influx.ensureDatabase();
  redis = createClient({ url: stack.redisUrl });
  await redis.connect();
});
afterAll(async () => {
  await influx?.query(`DROP DATABASE "${prefix}"`, { method: 'POST' }).catch(() => undefined);
  await redis?.quit();
});

const recordOf = (event: NormalizedEvent) => encodeAccepted(event, `company-${prefix}`);

describe('accepted events against the real stores', () => {
  it('every accepted point is written by InfluxDB and reads back under its own names', async () => {
    const events = fc
      .sample(fc.oneof(hostileEvent, mostlyValidEvent, mostlyValidEvent), { numRuns: 3000, seed: 20261124 })
      .map((raw) => normalizeEvent(raw, context).event)
      .filter((event): event is NormalizedEvent => event !== undefined && event.type !== 'log');
    expect(events.length).toBeGreaterThan(300);
    const expected = new Map<string, Set<string>>();
    let seq = 0;
    for (const event of events) {
      // One write per point: a refused point must be attributed to its event.
      const line = pointWithSeq(recordOf(event).body, ++seq);
      await expect(influx.write(line), line.slice(0, 300)).resolves.toBeUndefined();
      const measurement = MEASUREMENT[event.type as keyof typeof MEASUREMENT];
      // A plot's body is a point of its own, under the same names (docs/storage.md).
      for (const m of event.type === 'plot' ? [measurement, PLOT_BODY_MEASUREMENT] : [measurement]) {
        const names = expected.get(m) ?? new Set<string>();
        names.add(JSON.stringify([event.entity, event.metric, event.variant]));
        expected.set(m, names);
      }
    }
    expect(expected.has(PLOT_BODY_MEASUREMENT)).toBe(true);
    for (const [measurement, names] of expected) {
      const field = measurement === PLOT_BODY_MEASUREMENT ? 'p' : 'ts';
      const [result] = await influx.query(`SHOW TAG VALUES FROM "${measurement}" WITH KEY IN ("e", "m", "v")`);
      const stored = await influx.query(`SELECT count("${field}") FROM "${measurement}" GROUP BY "e", "m", "v"`);
      const series = (stored[0]?.series ?? []).map((s) =>
        JSON.stringify([decodeTagValue(s.tags!.e!), decodeTagValue(s.tags!.m!), decodeTagValue(s.tags!.v!)]),
      );
      expect(result).toBeDefined();
      expect(new Set(series)).toEqual(names);
    }
  });

  it('every accepted log line is appended with the stream id the writer gives it', async () => {
    const logs = fc
      .sample(fc.oneof(hostileEvent, mostlyValidEvent), { numRuns: 2000, seed: 20261125 })
      .map((raw) => normalizeEvent({ ...raw, type: 'log', model_event: false }, context).event)
      .filter((event): event is NormalizedEvent => event !== undefined);
    expect(logs.length).toBeGreaterThan(300);
    const key = `${prefix}:log`;
    let seq = 0;
    for (const event of logs) {
      const [, , timestamp, json] = checkLogBody(recordOf(event).body) as LogRecord;
      // The writer's id: `<max(0, timestamp)>-<arrival seq>`; a new stream per line, as ids need not grow.
      const id = `${Math.max(0, Math.trunc(timestamp))}-${++seq}`;
      await expect(redis.xAdd(`${key}:${seq}`, id, { d: json })).resolves.toBe(id);
      const [entry] = await redis.xRange(`${key}:${seq}`, '-', '+');
      const stored = JSON.parse(entry!.message.d!) as Record<string, unknown>;
      expect(stored.timestamp).toBe(event.timestamp);
      expect(stored.msg).toBe(event.msg);
    }
    const keys = await redis.keys(`${key}:*`);
    if (keys.length > 0) await redis.del(keys);
  });
});
