// Faults issue item 2 and hostile-input item 4: /ready checks JetStream itself, not only the NATS
// connection. A deleted events stream turns /ready red, is created again, and /ready turns green with the
// stream taking events again; a stream at its limits, which refuses new messages, keeps ingest not ready.
import { connect, DiscardPolicy, RetentionPolicy, StorageType, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { partitionOf, streamName } from '../../shared/events/wire-format.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

import '../harness/stack-context.js';
import { eventually } from '../harness/eventually.js';

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: inject('stack').natsUrl });
});
afterAll(async () => nc?.close());

const ready = async (h: Harness) => {
  const response = await fetch(`${h.baseUrl}/ready`);
  return { status: response.status, checks: ((await response.json()) as { checks: Record<string, string> }).checks };
};
const addLog = (h: Harness, token: string, task: string, msg: string) =>
  h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: JSON.stringify({ type: 'log', task, timestamp: Date.now(), level: 'info', msg }),
  });

/** One new task id for each partition. */
function tasksOnEveryPartition(partitions: number): string[] {
  const byPartition = new Map<number, string>();
  while (byPartition.size < partitions) {
    const task = unique('t-');
    const partition = partitionOf('t', task, partitions);
    if (!byPartition.has(partition)) byPartition.set(partition, task);
  }
  return [...byPartition.values()];
}

describe('the events stream deleted while the service runs', () => {
  let h: Harness;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ target: 'all' });
    token = await h.login(h.credentials.a);
  }, 60_000);
  afterAll(async () => h?.stop());

  it('turns /ready red, is created again, and /ready turns green with ingest accepting events', async () => {
    const task = unique('t-');
    expect((await addLog(h, token, task, 'before')).status).toBe(200);
    expect((await ready(h)).status).toBe(200);

    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(streamName(h.config.NATS_STREAM_PREFIX));
    const red = await ready(h);
    expect(red.status).toBe(503);
    expect(red.checks['ingest-stream']).toMatch(/missing/);
    expect(red.checks.nats).toBe('ok');

    await eventually(
      () => ready(h),
      (r) => r.status === 200,
      { timeoutMs: 30_000, what: '/ready green again' },
    );
    expect((await jsm.streams.info(streamName(h.config.NATS_STREAM_PREFIX))).config.name).toBe(
      streamName(h.config.NATS_STREAM_PREFIX),
    );
    // The stream takes events again (JetStream acknowledged them), and the writer stores them: its
    // consumers went with the stream and are created again, on every partition (an idle one too).
    const tasks = [task, ...tasksOnEveryPartition(h.config.NATS_PARTITIONS)];
    for (const t of tasks) expect((await addLog(h, token, t, 'after')).status).toBe(200);
    for (const t of tasks) {
      const stored = await eventually(
        () => h.call('events.get_task_log', { task: t }, { token }),
        (r) => r.status === 200 && (r.body.data.events as Array<{ msg: string }>).some((e) => e.msg === 'after'),
        { timeoutMs: 30_000, what: `the event sent to ${t} after the stream came back is stored` },
      );
      expect((stored.body.data.events as Array<{ msg: string }>).map((e) => e.msg)).toContain('after');
    }
  }, 90_000);
});

describe('an events stream at its limits', () => {
  let h: Harness;
  let token: string;
  const prefix = unique('full');
  beforeAll(async () => {
    // Created before the service with a limit of one message (not a limit the configuration sets, so the service keeps it).
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({
      name: streamName(prefix),
      subjects: [`${prefix}.ev.*`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      discard: DiscardPolicy.New,
      max_msgs: 1,
    });
    h = await startHarness({ target: 'ingest', env: { NATS_STREAM_PREFIX: prefix } });
    token = await h.login(h.credentials.a);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await (await nc.jetstreamManager()).streams.delete(streamName(prefix)).catch(() => undefined);
  });

  it('keeps ingest not ready once the stream refuses new messages, and a publish answers 503', async () => {
    expect((await ready(h)).status).toBe(200);
    expect((await addLog(h, token, unique('t-'), 'fills the stream')).status).toBe(200);
    const full = await ready(h);
    expect(full.status).toBe(503);
    expect(full.checks['ingest-stream']).toMatch(/full \(max_msgs 1 reached\)/);
    const refused = await addLog(h, token, unique('t-'), 'refused');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body.meta.result_msg).toBe(
      'Events could not be persisted, retry later (event log full) (maximum messages exceeded)',
    );
  });
});
