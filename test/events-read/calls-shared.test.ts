// Calls shared between companies (docs/protocol.md, "Calls shared between companies"): a process runs at most
// READ_MAX_RUNNING_CALLS reads at once, a quarter of them per company; a company's further reads wait in its own
// line (a quarter of READ_MAX_WAITING_CALLS, 429 too_many_reads with Retry-After beyond), so another company's read
// runs at once, however many the first has going. Deletions likewise (DELETE_MAX_*), so that a company's deletions,
// which the writers run at their place in a partition, hold up the events of few partitions. A proxy in front of the
// real InfluxDB holds the queries that name company A's tasks, as a store slowed by A's heavy calls would.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { partitionOf } from '../../shared/events/wire-format.js';
import { eventually } from '../harness/eventually.js';
import { holdingProxy, type HoldingProxy } from '../harness/holding-influx-proxy.js';
import { log, scalar, T0 } from '../harness/event-builders.js';
import {
  type ServiceFixture,
  expectError,
  startServiceFixture,
  unique,
  untilCount,
} from '../harness/service-fixture.js';

let proxy: HoldingProxy;
let r: ServiceFixture;
const taskA = unique('fair-a-');
const taskB = unique('fair-b-');
const HISTOGRAM = 'events.scalar_metrics_iter_histogram';
let answerA: unknown;
let answerB: unknown;

beforeAll(async () => {
  proxy = await holdingProxy(inject('stack').influxUrl);
  // Reads: 8 running (2 a company), 16 waiting (4 a company). Deletions: 4 running (1 a company), 8 waiting (2).
  r = await startServiceFixture({
    env: {
      INFLUX_URL: proxy.url,
      READ_MAX_RUNNING_CALLS: '8',
      READ_MAX_WAITING_CALLS: '16',
      DELETE_MAX_RUNNING_CALLS: '4',
      DELETE_MAX_WAITING_CALLS: '8',
    },
  });
  const series = (task: string) => Array.from({ length: 50 }, (_, i) => scalar(task, 'loss', 'train', i, i * 2));
  await r.add(series(taskA));
  await r.add(series(taskB), r.tokenB);
  answerA = await r.poll(HISTOGRAM, { task: taskA }, (d) => d.loss?.train?.x?.length === 50);
  answerB = await eventually(
    () => r.data(HISTOGRAM, { task: taskB }, r.tokenB),
    (d) => d.loss?.train?.x?.length === 50,
    { what: "B's series" },
  );
}, 120_000);
afterAll(async () => {
  proxy?.release();
  await r?.stop();
  await proxy?.close();
});

async function gauge(name: string): Promise<number> {
  const metric = await r.h.service.services.metrics.getSingleMetric(name)!.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

/** Until the process has this many calls of the kind running and waiting. */
const untilCalls = (kind: 'read' | 'deletion', running: number, waiting: number) =>
  eventually(
    async () => [await gauge(`clearml_${kind}_calls_running`), await gauge(`clearml_${kind}_calls_waiting`)],
    (counts) => counts[0] === running && counts[1] === waiting,
    { what: `${running} ${kind}s running, ${waiting} waiting` },
  );
const untilReads = (running: number, waiting: number) => untilCalls('read', running, waiting);

it("while company A's reads fill its share and its line, B's read is answered at once; A's are all answered after", async () => {
  proxy.markers = [taskA];
  const readsA = Array.from({ length: 6 }, () => r.call(HISTOGRAM, { task: taskA }));
  await untilReads(2, 4);
  await eventually(
    () => proxy.held.length,
    (held) => held >= 2,
    { what: "A's running reads at the store" },
  );
  // Only A's running reads reached the store; the waiting ones asked nothing of it.
  expect(proxy.held).toHaveLength(2);

  const refused = await r.call(HISTOGRAM, { task: taskA });
  expectError(refused, 429, 0, 'Too many read calls waiting, retry later');
  expect(refused.headers['retry-after']).toBe('1');
  expect(await gauge('clearml_read_calls_refused_total')).toBe(1);

  expect(await r.data(HISTOGRAM, { task: taskB }, r.tokenB)).toEqual(answerB);
  // Writes are not reads: A's events are still taken while its reads wait.
  await r.add([scalar(taskA, 'other', 'x', 0, 1)]);
  expect(proxy.held).toHaveLength(2);

  proxy.release();
  for (const answer of await Promise.all(readsA)) {
    expect(answer.status, JSON.stringify(answer.body.meta)).toBe(200);
    expect(answer.body.data.loss).toEqual((answerA as { loss: unknown }).loss);
  }
  await untilReads(0, 0);
});

it('a read whose caller goes away while waiting gives its place in the line back', async () => {
  proxy.markers = [taskA];
  const running = [r.call(HISTOGRAM, { task: taskA }), r.call(HISTOGRAM, { task: taskA })];
  await untilReads(2, 0);
  const leaving: ClientRequest[] = [];
  const answered = Array.from({ length: 4 }, () => {
    const body = JSON.stringify({ task: taskA });
    return new Promise<number>((resolve, reject) => {
      const call = httpRequest(
        `${r.h.baseUrl}/events.scalar_metrics_iter_histogram`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${r.tokenA}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (answer) => {
          answer.resume();
          answer.on('end', () => resolve(answer.statusCode ?? 0));
        },
      );
      call.on('error', reject);
      call.end(body);
      leaving.push(call);
    });
  });
  await untilReads(2, 4);
  leaving[0]!.destroy();
  await expect(answered[0]).rejects.toThrow();
  await untilReads(2, 3);
  // Its place is free: the next read waits instead of being refused.
  const next = r.call(HISTOGRAM, { task: taskA });
  await untilReads(2, 4);
  proxy.release();
  expect(await Promise.all(answered.slice(1))).toEqual([200, 200, 200]);
  expect((await Promise.all([...running, next])).map((a) => a.status)).toEqual([200, 200, 200]);
  await untilReads(0, 0);
});

it("a read whose answer its client does not take keeps its slot until the connection ends, and only its company's", async () => {
  // 24 MB of log: more than the answer's socket buffers take, so the answer cannot be written out unread.
  const taskLog = unique('fair-log-');
  const line = 'x'.repeat(600);
  await r.add(Array.from({ length: 40_000 }, (_, i) => log(taskLog, T0 + i, line)));
  await untilCount(r, taskLog, 40_000);
  const unread = Array.from({ length: 2 }, () => {
    const call = httpRequest(
      `${r.h.baseUrl}/events.download_task_log?task=${taskLog}`,
      { headers: { authorization: `Bearer ${r.tokenA}` } },
      (answer) => answer.pause(),
    );
    call.on('error', () => undefined);
    call.end();
    return call;
  });
  await untilReads(2, 0);
  const next = r.call(HISTOGRAM, { task: taskA });
  await untilReads(2, 1);
  expect(await r.data(HISTOGRAM, { task: taskB }, r.tokenB)).toEqual(answerB);
  unread[0]!.destroy();
  expect((await next).status).toBe(200);
  await untilReads(1, 0);
  unread[1]!.destroy();
  await untilReads(0, 0);
});

/** A task id of `prefix` whose events go to `partition`. */
function taskInPartition(prefix: string, partition: number): string {
  for (;;) {
    const task = unique(prefix);
    if (partitionOf('t', task, r.h.config.NATS_PARTITIONS) === partition) return task;
  }
}

it("while A's deletion is held in the writer, A's next deletions wait here, and B's events in their partitions are stored", async () => {
  const tasksA = [0, 1, 2].map((partition) => taskInPartition('del-a-', partition));
  await r.add(tasksA.flatMap((task) => Array.from({ length: 10 }, (_, i) => scalar(task, 'm', 'v', i, i))));
  for (const task of tasksA) await untilCount(r, task, 10);

  proxy.markers = tasksA;
  const deletions = tasksA.map((task) => r.call('events.delete_for_task', { task }));
  await untilCalls('deletion', 1, 2);
  await eventually(
    () => proxy.held.length,
    (held) => held >= 1,
    { what: "A's running deletion at the store" },
  );
  // Only one of A's deletions reached the writers: the others hold up no partition.
  expect(proxy.held).toHaveLength(1);

  const refused = await r.call('events.delete_for_task', { task: tasksA[0] });
  expectError(refused, 429, 0, 'Too many deletions waiting, retry later');
  expect(refused.headers['retry-after']).toBe('1');

  // B's events in the partitions of A's waiting deletions are stored (before, they waited behind them).
  const waitingPartitions = tasksA.filter((task) => task !== proxy.held[0]).map((task) => tasksA.indexOf(task));
  const tasksB = waitingPartitions.map((partition) => taskInPartition('del-b-', partition));
  await r.add(
    tasksB.map((task) => scalar(task, 'm', 'v', 0, 1)),
    r.tokenB,
  );
  for (const task of tasksB)
    await eventually(
      () => r.data('events.get_task_events', { task, batch_size: 1 }, r.tokenB),
      (d) => d.total === 1,
      { what: `B's event in ${task}` },
    );

  proxy.release();
  for (const answer of await Promise.all(deletions)) {
    expect(answer.status, JSON.stringify(answer.body.meta)).toBe(200);
    expect(answer.body.data.deleted).toBe(10);
  }
  await untilCalls('deletion', 0, 0);
});
