// Store failures and poison messages: the writer retries without acknowledging, and moves what can never be stored aside.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEAD_LETTER_HEADERS } from '../../ingest/writer/dead-letters.js';
import { consumerName, deadLetterStreamName, partitionOf, streamName } from '../../shared/events/wire-format.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { inject } from 'vitest';
import { editedRecord, logRecord, PipelineClient, scalarRecord } from './writer-fixtures.js';
import { eventually } from '../harness/eventually.js';

/** A pass-through proxy in front of InfluxDB that can be made to answer 503. */
async function startFlakyProxy(
  target: string,
): Promise<{ url: string; failing: boolean; failed: number; close(): Promise<void> }> {
  const state = { failing: false, failed: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (state.failing && req.url?.startsWith('/write')) {
        state.failed++;
        res.writeHead(503).end('unavailable');
        return;
      }
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      fetch(`${target}${req.url}`, {
        method: req.method,
        headers: { 'content-type': req.headers['content-type'] ?? 'text/plain' },
        body,
      })
        .then(async (r) =>
          res
            .writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' })
            .end(Buffer.from(await r.arrayBuffer())),
        )
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

let h: Harness;
let c: PipelineClient;
let proxy: Awaited<ReturnType<typeof startFlakyProxy>>;

beforeAll(async () => {
  proxy = await startFlakyProxy(inject('stack').influxUrl);
  h = await startHarness({ target: 'writer', env: { INFLUX_URL: proxy.url } });
  c = await PipelineClient.open({ ...h.config, INFLUX_URL: inject('stack').influxUrl });
});
afterAll(async () => {
  await c?.close();
  await h?.stop();
  await proxy?.close();
});

const metricValue = async (name: string) => {
  const metric = await h.service.services.metrics.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
};

describe('store failure', () => {
  it('retries while InfluxDB answers 503, acknowledges nothing, then stores everything exactly once', async () => {
    const task = unique('t');
    proxy.failing = true;
    for (let m = 0; m < 5; m++) {
      const records = [];
      for (let i = 0; i < 100; i++) records.push(scalarRecord(task, 'm', 'v', m * 100 + i, m * 100 + i));
      records.push(logRecord(task, 1000 + m, `line ${m}`));
      await c.publish(task, records);
    }
    await eventually(() => proxy.failed >= 3, undefined, { timeoutMs: 15_000 });
    const stream = await c.jsm.streams.info(streamName(h.config.NATS_STREAM_PREFIX));
    expect(stream.state.messages).toBe(5);
    expect(await c.count('scalar', task)).toBe(0);
    expect(await c.logEntries(task)).toEqual([]);
    expect(await metricValue('clearml_writer_store_retries_total')).toBeGreaterThanOrEqual(3);
    proxy.failing = false;
    await c.drained(20_000);
    expect(await c.count('scalar', task)).toBe(500);
    const sample = await c.points('scalar', task, 'AND time = 321');
    expect(sample[0]).toMatchObject({ y: 321 });
    expect((await c.logEntries(task)).map((e) => e.event.msg)).toEqual([
      'line 0',
      'line 1',
      'line 2',
      'line 3',
      'line 4',
    ]);
  });
});

describe('consumer deleted while a batch is held', () => {
  it('the partition is taken again from a fresh consumer, and the replayed batch stores nothing twice', async () => {
    const task = unique('t');
    const partition = partitionOf('t', task, h.config.NATS_PARTITIONS);
    proxy.failing = true;
    const failedBefore = proxy.failed;
    const records = [];
    for (let i = 0; i < 20; i++) records.push(scalarRecord(task, 'm', 'v', i, i));
    for (let i = 0; i < 5; i++) records.push(logRecord(task, 1_000 + i, `line ${i}`));
    await c.publish(task, records, { headers: { k: 'ev', v: '1' } });
    await eventually(() => proxy.failed > failedBefore, undefined, { timeoutMs: 15_000 });
    // The writer holds the message, retrying InfluxDB; its consumer goes away underneath it.
    await c.jsm.consumers.delete(
      streamName(h.config.NATS_STREAM_PREFIX),
      consumerName(h.config.NATS_STREAM_PREFIX, partition),
    );
    proxy.failing = false;
    await c.drained(40_000);
    expect(await c.count('scalar', task)).toBe(20);
    expect((await c.logEntries(task)).map((e) => e.event.msg)).toEqual([
      'line 0',
      'line 1',
      'line 2',
      'line 3',
      'line 4',
    ]);
  });
});

describe('consumer deleted while its partition waits for messages', () => {
  it('the partition is taken again from a fresh consumer, and a message published after is stored', async () => {
    const task = unique('t');
    const partition = partitionOf('t', task, h.config.NATS_PARTITIONS);
    await c.publish(task, [scalarRecord(task, 'm', 'v', 1, 1)]);
    await c.drained();
    expect(await c.count('scalar', task)).toBe(1);
    // Nothing held: the writer only has a pull request open on the consumer, which JetStream ends
    // with a 409; later pulls on the missing consumer are dropped without any answer.
    await c.jsm.consumers.delete(
      streamName(h.config.NATS_STREAM_PREFIX),
      consumerName(h.config.NATS_STREAM_PREFIX, partition),
    );
    await c.publish(task, [scalarRecord(task, 'm', 'v', 2, 2)]);
    await eventually(
      () => c.count('scalar', task),
      (n) => n === 2,
      { timeoutMs: 20_000, what: 'the message published after the deletion is stored' },
    );
  });
});

describe('poison messages', () => {
  it('go to the dead-letter stream with their reason, alone: their siblings and the messages after them are stored', async () => {
    const task = unique('t');
    const good1 = await c.publish(task, [scalarRecord(task, 'm', 'v', 1, 1), logRecord(task, 1, 'good 1')]);
    const garbled = await c.publish(task, 'X12:not a record');
    // A point InfluxDB cannot parse (a field without its value), and one whose field type conflicts with the series'.
    const refusedPoint = editedRecord(scalarRecord(task, 'm', 'v', 3, 3), (body) => body.replace('y=3', 'y='));
    const unparsable = await c.publish(task, [
      scalarRecord(task, 'm', 'v', 2, 2),
      refusedPoint,
      logRecord(task, 2, 'sibling of a refused point'),
    ]);
    const conflicting = await c.publish(task, [
      editedRecord(scalarRecord(task, 'm', 'v', 4, 0), (body) => body.replace('y=0', 'y="text"')),
    ]);
    await c.publish(task, [scalarRecord(task, 'm', 'v', 5, 5), logRecord(task, 5, 'good 2')]);
    await c.drained();
    expect((await c.points('scalar', task)).map((r) => r.y)).toEqual([1, 2, 5]);
    expect((await c.logEntries(task)).map((e) => e.event.msg)).toEqual([
      'good 1',
      'sibling of a refused point',
      'good 2',
    ]);

    const dead = deadLetterStreamName(h.config.NATS_STREAM_PREFIX);
    await eventually(async () => (await c.jsm.streams.info(dead)).state.messages === 3, undefined);
    const letters = [];
    for (let seq = 1; seq <= 3; seq++) letters.push(await c.jsm.streams.getMessage(dead, { seq }));
    expect(letters.map((m) => Number(m.header.get(DEAD_LETTER_HEADERS.streamSeq)))).toEqual([
      garbled,
      unparsable,
      conflicting,
    ]);
    expect(letters.map((m) => m.header.get(DEAD_LETTER_HEADERS.reason))).toEqual([
      'undecodable',
      'influx_rejected',
      'influx_rejected',
    ]);
    expect(letters.map((m) => m.header.get(DEAD_LETTER_HEADERS.recordIndex))).toEqual(['', '1', '0']);
    expect(letters[1]!.header.get(DEAD_LETTER_HEADERS.detail)).toMatch(/unable to parse/);
    expect(letters[2]!.header.get(DEAD_LETTER_HEADERS.detail)).toMatch(/conflict/);
    expect(letters[0]!.string()).toBe('X12:not a record');
    expect(letters[1]!.string()).toBe(refusedPoint);
    expect(Number(letters[0]!.header.get(DEAD_LETTER_HEADERS.partition))).toBeGreaterThanOrEqual(0);
    expect(good1).toBeLessThan(garbled);
    expect(await metricValue('clearml_writer_dead_letters_total')).toBe(3);
  });
});
