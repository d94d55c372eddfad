// Writers scale (issue 12, item 5): writer processes share the partitions through Redis leases.
// Under a steady load through ingest, three writer processes (the built launcher's `writer`
// target): a third one started takes its share within seconds and the others shrink to theirs;
// one paused (SIGSTOP) past its lease loses its partitions to the others and, woken up in the
// middle of a batch, stores nothing more of it; one stopped (SIGTERM) hands its partitions back.
// Evidence: each writer logs, per batch, when its first and last store call were issued (the
// acknowledgement is the last): on one partition, no two writers' intervals overlap, and every
// event is stored exactly once, in per-task order (the last report wins).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { encodeTagValue } from '../../shared/events/storage-layout.js';
import { partitionOf } from '../../shared/events/wire-format.js';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { PipelineClient } from './writer-fixtures.js';
import { overlappingBatches, startSlowInflux, WriterProcess, type SlowInflux } from './writer-processes.js';
import { eventually } from '../harness/eventually.js';

const PARTITIONS = 6;
const LEASE_TTL_MS = 5_000;
/** A bound that holds on a loaded 2-core machine yet catches a writer that never moves (measured: 2-7 s). */
const MOVE_WITHIN_MS = 15_000;
const TASKS_PER_PARTITION = 2;
const T0 = 1_700_000_000_000;

let h: Harness;
let c: PipelineClient;
let token: string;
let dataDir: string;
let slow: SlowInflux;
const writers: WriterProcess[] = [];

beforeAll(async () => {
  const env = { NATS_PARTITIONS: String(PARTITIONS), WRITER_LEASE_TTL_MS: String(LEASE_TTL_MS) };
  h = await startHarness({ target: 'ingest', env });
  c = await PipelineClient.open(h.config);
  token = await h.login(h.credentials.a);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'clearml-writers-'));
  slow = await startSlowInflux(inject('stack').influxUrl, 1_000);
});
afterAll(async () => {
  await Promise.all(writers.map((w) => w.stop()));
  await slow?.close();
  await c?.close();
  await h?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** Tasks spread so that every partition has TASKS_PER_PARTITION of them. */
function spreadTasks(): string[] {
  const byPartition = new Map<number, string[]>();
  while ([...byPartition.values()].reduce((n, list) => n + list.length, 0) < PARTITIONS * TASKS_PER_PARTITION) {
    const task = unique('scale-');
    const list = byPartition.get(partitionOf('t', task, PARTITIONS)) ?? [];
    if (list.length < TASKS_PER_PARTITION) byPartition.set(partitionOf('t', task, PARTITIONS), [...list, task]);
  }
  return [...byPartition.values()].flat();
}

/** Rounds of one request per task (a log line, a scalar at iteration k, and a re-report of iteration 0), until stopped. */
class SteadyLoad {
  readonly sent = new Map<string, number>();
  private stopped = false;
  private failure: unknown;
  private readonly running: Promise<void>;

  constructor(readonly tasks: string[]) {
    for (const task of tasks) this.sent.set(task, 0);
    this.running = this.run().catch((error: unknown) => {
      this.failure = error;
    });
  }

  /** Stops after the round under way; throws when a request of the load failed. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    if (this.failure) throw this.failure;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await Promise.all(this.tasks.map((task) => this.send(task)));
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async send(task: string): Promise<void> {
    const k = this.sent.get(task)!;
    const events = [
      { type: 'log', task, timestamp: T0 + k, level: 'info', msg: `${task} ${k}` },
      { type: 'training_stats_scalar', task, iter: k, timestamp: T0 + k, metric: 'loss', variant: 'v', value: k },
      { type: 'training_stats_scalar', task, iter: 0, timestamp: T0 + k, metric: 'last', variant: 'v', value: k },
    ];
    const answer = await h.call('events.add_batch', undefined, {
      token,
      headers: { 'content-type': 'application/json-lines' },
      rawBody: events.map((e) => JSON.stringify(e)).join('\n'),
    });
    if (answer.status !== 200 || answer.body?.data?.added !== 3)
      throw new Error(`add_batch answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    this.sent.set(task, k + 1);
  }
}

async function ownedBy(list: WriterProcess[]): Promise<number[]> {
  return Promise.all(list.map((w) => w.owned()));
}

/** Waits until the writers own exactly `shares` (in order); answers the ms it took. */
async function untilShares(list: WriterProcess[], shares: number[], withinMs: number, what: string): Promise<number> {
  const started = Date.now();
  await eventually(
    () => ownedBy(list),
    (owned) => owned.every((n, i) => n === shares[i]),
    { timeoutMs: withinMs, what: `${what}: partitions owned ${JSON.stringify(shares)}` },
  );
  return Date.now() - started;
}

describe('writer processes sharing the partitions', () => {
  it(
    'a third writer takes its share, a paused one loses its partitions and writes nothing more to them, a stopped one hands them back; no partition is ever written by two writers at once',
    { timeout: 240_000 },
    async () => {
      const [w1, w2] = await Promise.all([
        WriterProcess.start('w1', h.env, dataDir),
        WriterProcess.start('w2', h.env, dataDir),
      ]);
      writers.push(w1!, w2!);
      await untilShares([w1!, w2!], [3, 3], 30_000, 'two writers share');
      const load = new SteadyLoad(spreadTasks());
      try {
        // (a) A third writer (behind a slow InfluxDB, see (c)) takes its share within seconds.
        const w3 = await WriterProcess.start('w3', h.env, dataDir, { INFLUX_URL: slow.url });
        writers.push(w3);
        const takeShareMs = await untilShares([w1!, w2!, w3], [2, 2, 2], MOVE_WITHIN_MS, 'a third writer joins');

        // (c) Paused in the middle of a batch (its first write issued, the answer not yet read) past its lease TTL.
        await eventually(() => w3.batches().length > 0 && slow.held > 0, undefined, { timeoutMs: 30_000, everyMs: 5 });
        w3.process.signal('SIGSTOP');
        const pausedAt = Date.now();
        let resumedAt = 0;
        let takeOverMs: number;
        let lost: number[];
        try {
          takeOverMs = await untilShares(
            [w1!, w2!],
            [3, 3],
            LEASE_TTL_MS + MOVE_WITHIN_MS,
            'the others take over the paused writer',
          );
          lost = [...new Set(w3.batches().map((b) => b.partition))];
          // The others have written to the paused writer's partitions before it wakes up.
          await eventually(
            () =>
              lost.every((p) =>
                [...w1!.batches(), ...w2!.batches()].some((b) => b.partition === p && b.issuedFrom > pausedAt),
              ),
            undefined,
            { timeoutMs: 30_000, everyMs: 200 },
          );
        } finally {
          w3.process.signal('SIGCONT');
          resumedAt = Date.now();
        }
        const rejoinMs = await untilShares([w1!, w2!, w3], [2, 2, 2], MOVE_WITHIN_MS, 'the woken writer rejoins');

        // (b) Stopped: its partitions go back to the others.
        const stopping = Date.now();
        await w1!.stop();
        const exitMs = Date.now() - stopping;
        await untilShares([w2!, w3], [3, 3], MOVE_WITHIN_MS, 'a stopped writer hands back');
        const handBackMs = Date.now() - stopping;
        await load.stop();
        await c.drained(60_000);
        console.log(
          `writer scale-out: third writer took its share in ${takeShareMs} ms; paused writer's partitions taken over ${takeOverMs} ms after SIGSTOP (lease TTL ${LEASE_TTL_MS} ms); ` +
            `woken writer rejoined in ${rejoinMs} ms; stopped writer exited ${exitMs} ms after SIGTERM, its partitions owned by the others ${handBackMs} ms after it; paused ${resumedAt - pausedAt} ms`,
        );

        const records = writers.flatMap((w) => w.batches());
        // (c) The woken writer issued no store call for a batch it had begun before the pause...
        const finishedAfterWaking = w3.batches().filter((b) => b.issuedFrom < pausedAt && b.issuedTo > pausedAt);
        expect(finishedAfterWaking, 'batches the paused writer went on with after waking').toEqual([]);
        // ...and the pause did catch it in the middle of one (the dangerous case was exercised).
        expect(w3.batches().some((b) => b.outcome === 'abandoned' && b.issuedFrom < pausedAt)).toBe(true);

        // (d) On each partition, the store calls of two writers were never issued in overlapping intervals.
        expect(records.filter((r) => r.outcome === 'stored').length).toBeGreaterThan(50);
        expect(overlappingBatches(records)).toEqual([]);

        // Every event stored exactly once, in per-task order; the last report wins.
        for (const task of load.tasks) {
          const k = load.sent.get(task)!;
          const expected = Array.from({ length: k }, (_, i) => `${task} ${i}`);
          expect(
            (await c.logEntries(task)).map((e) => e.event.msg),
            `log of ${task}`,
          ).toEqual(expected);
          const points = await c.points('scalar', task);
          const loss = points.filter((p) => p.m === encodeTagValue('loss'));
          expect(
            loss.map((p) => p.y).sort((a, b) => Number(a) - Number(b)),
            `loss points of ${task}`,
          ).toEqual(Array.from({ length: k }, (_, i) => i));
          expect(
            points.filter((p) => p.m === encodeTagValue('last')).map((p) => p.y),
            `re-reported point of ${task}`,
          ).toEqual([k - 1]);
          const summary = JSON.parse(
            (await c.redis.hGet(
              c.keys.lastMetrics(h.credentials.a.company, 't', task),
              JSON.stringify(['last', 'v']),
            )) ?? '{}',
          );
          expect(summary, `last_metrics of ${task}`).toMatchObject({ value: k - 1, count: k });
        }
      } finally {
        await load.stop().catch(() => undefined);
      }
    },
  );
});
