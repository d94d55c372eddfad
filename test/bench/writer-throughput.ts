/**
 * `node dist/test/bench/writer-throughput.js`: points per second the writer
 * alone stores (messages pre-published to JetStream, 500 points each, then
 * one writer process started and timed until the stream is empty), beside
 * raw InfluxDB writes of the same lines (10k-point bodies encoded
 * beforehand, 2 in flight, as the writer does) measured in the same run on
 * the same stack.
 * The machine is shared, so it also reports CPU per point (writer process,
 * influxd, nats-server), which contention disturbs far less than rates.
 * Last line: `writer points_per_s=<x> raw_points_per_s=<y> ratio=<x/y> writer_cpu_us=<per point>`.
 *
 * Size with BENCH_POINTS (default 2,000,000).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { connect } from 'nats';
import { ensureEventStreams } from '../../shared/events/event-streams.js';
import {
  arrivalSeq,
  frameRecord,
  partitionOf,
  partitionSubject,
  pointWithSeq,
  streamName,
} from '../../shared/events/wire-format.js';
import { InfluxPointWriter } from '../../ingest/writer/influx-point-writer.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { openBenchEnvironment, progress, round } from './bench-environment.js';

const POINTS = Number(process.env.BENCH_POINTS ?? 2_000_000);
const PER_MESSAGE = 500;
const TASKS = 64;
const SERIES = 10;
const PARTITIONS = 8;
const PREFIX = 'wbench';

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return Number.NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

function pidOf(pids: number[], binary: string): number | undefined {
  return pids.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(binary);
    } catch {
      return false;
    }
  });
}

const perPointUs = (seconds: number, points: number) => round((seconds * 1e6) / points);

/** The point bodies of one message (as ingest formats them), for a task, starting at iteration `iter`. */
function messagePoints(task: string, firstIndex: number): string[] {
  const bodies: string[] = [];
  for (let k = 0; k < PER_MESSAGE; k++) {
    const i = firstIndex + k;
    const series = i % SERIES;
    const iter = Math.floor(i / SERIES);
    bodies.push(
      `scalar,c=bench,e=${task},m=metric${series % 3},n=t,v=variant${series} y=${(i % 1000) / 7},ts=${1718000000000 + i}i,at=1718000000000i,w="bench" ${iter}`,
    );
  }
  return bodies;
}

async function main(): Promise<void> {
  const env = await openBenchEnvironment();
  try {
    const messages: Array<{ task: string; bodies: string[] }> = [];
    const perTask = Math.ceil(POINTS / PER_MESSAGE / TASKS);
    for (let m = 0; m < perTask; m++)
      for (let t = 0; t < TASKS; t++)
        messages.push({ task: `task${t}`, bodies: messagePoints(`task${t}`, m * PER_MESSAGE) });
    const total = messages.length * PER_MESSAGE;

    // Raw baseline: the very lines the writer sends (q spliced in), 10k per body, encoded
    // beforehand and posted by the writer's own HTTP client, 2 at a time: the best a client can do.
    // Measured before and after the writer, against drift of the shared machine.
    const rawBodies: Buffer[] = [];
    let lines: string[] = [];
    messages.forEach((message, m) => {
      message.bodies.forEach((body, k) => lines.push(pointWithSeq(body, arrivalSeq(m + 1, k))));
      if (lines.length >= 10_000) {
        rawBodies.push(Buffer.from(lines.join('\n')));
        lines = [];
      }
    });
    if (lines.length) rawBodies.push(Buffer.from(lines.join('\n')));
    const influxd = pidOf(env.stack.pids, 'influxd');
    const natsd = pidOf(env.stack.pids, 'nats-server');
    const rawBaseline = async (database: string): Promise<number> => {
      await new InfluxStore({ url: env.stack.influxUrl, database }).ensureDatabase();
      const raw = new InfluxPointWriter({ url: env.stack.influxUrl, database }, 2);
      progress(`raw InfluxDB: ${total} points in ${rawBodies.length} bodies, 2 in flight`);
      let next = 0;
      const cpuBefore = cpuSeconds(influxd);
      const started = performance.now();
      await Promise.all(
        [0, 1].map(async () => {
          while (next < rawBodies.length) await raw.write(rawBodies[next++]!);
        }),
      );
      const rate = total / ((performance.now() - started) / 1000);
      raw.close();
      progress(
        `raw InfluxDB: ${Math.round(rate)} points/s, influxd ${perPointUs(cpuSeconds(influxd) - cpuBefore, total)} µs CPU per point`,
      );
      return rate;
    };
    const rawBefore = await rawBaseline('bench_raw_before');

    // Pre-publish every message, then time one writer process draining the stream.
    const nc = await connect({ servers: env.stack.natsUrl });
    const jsm = await nc.jetstreamManager();
    await ensureEventStreams(jsm, {
      prefix: PREFIX,
      replicas: 1,
      duplicateWindowMs: 120_000,
      maxBytes: 0,
      maxAgeMs: 0,
    });
    const js = nc.jetstream();
    progress(`publishing ${messages.length} messages of ${PER_MESSAGE} points`);
    for (let m = 0; m < messages.length; m += 32) {
      await Promise.all(
        messages
          .slice(m, m + 32)
          .map(({ task, bodies }) =>
            js.publish(
              partitionSubject(PREFIX, partitionOf('t', task, PARTITIONS)),
              bodies.map((b) => frameRecord('I', b)).join(''),
            ),
          ),
      );
    }
    messages.length = 0;
    const stream = streamName(PREFIX);
    let firstProgressAt = 0;
    let drainedAt = 0;
    let writerPid: number | undefined;
    let cpuAtFirstProgress = 0;
    const watching = (async () => {
      for (;;) {
        const left = (await jsm.streams.info(stream)).state.messages;
        const now = performance.now();
        if (!firstProgressAt && left < total / PER_MESSAGE) {
          firstProgressAt = now;
          cpuAtFirstProgress = cpuSeconds(writerPid);
        }
        if (left === 0) {
          drainedAt = now;
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    progress('starting the writer');
    const before = { influxd: cpuSeconds(influxd), natsd: cpuSeconds(natsd) };
    const dataDir = path.join(env.dataDir, 'writer');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      path.join(dataDir, 'credentials.json'),
      JSON.stringify([{ access_key: 'BENCHKEY', secret_key: 'bench-secret', company: 'bench', user: 'bench-user' }]),
    );
    const writer = spawn(process.execPath, [path.resolve('dist/shared/launcher/main.js'), 'writer'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        API_PORT: '0',
        NATS_URL: env.stack.natsUrl,
        INFLUX_URL: env.stack.influxUrl,
        REDIS_URL: env.stack.redisUrl,
        NATS_STREAM_PREFIX: PREFIX,
        NATS_PARTITIONS: String(PARTITIONS),
        INFLUX_DB: 'bench_writer',
        REDIS_KEY_PREFIX: PREFIX,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    writerPid = writer.pid;
    const exited = new Promise<never>((_, reject) =>
      writer.once('exit', (code) => reject(new Error(`writer exited (${code}) before the stream was drained`))),
    );
    await Promise.race([watching, exited]);
    // From its first acknowledged message on: start-up (loading every target's modules) is not per point.
    const writerCpu = cpuSeconds(writer.pid) - cpuAtFirstProgress;
    const used = { influxd: cpuSeconds(influxd) - before.influxd, natsd: cpuSeconds(natsd) - before.natsd };
    const writerRate = total / ((drainedAt - firstProgressAt) / 1000);
    exited.catch(() => undefined);
    writer.kill('SIGTERM');
    await new Promise((resolve) => writer.once('exit', resolve));
    await nc.close();
    const rawAfter = await rawBaseline('bench_raw_after');
    const rawRate = (rawBefore + rawAfter) / 2;
    const stored = await new InfluxStore({ url: env.stack.influxUrl, database: 'bench_writer' }).query(
      'SELECT COUNT("ts") FROM "scalar"',
    );
    const count = Number(stored[0]?.series?.[0]?.values[0]?.[1] ?? 0);
    if (count !== total) throw new Error(`writer stored ${count} points, expected ${total}`);
    progress(`writer: ${Math.round(writerRate)} points/s (${count} stored)`);
    progress(
      `CPU per point: writer process ${perPointUs(writerCpu, total)} µs, influxd ${perPointUs(used.influxd, total)} µs, nats-server ${perPointUs(used.natsd, total)} µs`,
    );
    process.stdout.write(
      `writer points_per_s=${Math.round(writerRate)} raw_points_per_s=${Math.round(rawRate)} ratio=${round(writerRate / rawRate)} writer_cpu_us=${perPointUs(writerCpu, total)}\n`,
    );
  } finally {
    await env.close();
  }
}

await main();
