/**
 * `npm run bench:ingest`: events per second end to end (acknowledged and
 * stored) for HTTP NDJSON and for gRPC streaming, beside raw line-protocol
 * writes of the same points straight to InfluxDB measured in the same run;
 * ack latency and visibility lag (ack → readable); the CPU time each
 * process spent per event (from /proc), and InfluxDB's CPU per point in the
 * pipeline against the raw baseline. Last line: `ingest cpu_us_http=<x>
 * cpu_us_grpc=<y> influx_cost_ratio=<z> ratio_http=<a> ratio_grpc=<b>
 * ack_p99_ms=<c> lag_p99_ms=<d> ingest_peak_rss_mb=<e>` (cpu_us: ingest +
 * writer + nats-server + redis-server per event stored; the RSS: the ingest
 * (or all) process's peak while 32 clients send 15 MiB add_batch bodies at
 * once, BENCH_MEMORY_CLIENTS and BENCH_MEMORY_BODY_MIB; cpu_us_logs and
 * cpu_us_mixed: the same CPU accounting for BENCH_EVENTS / 4 log lines, and for
 * as many events of a training run's mix, over HTTP).
 *
 * Before the measured phases, the same processes take BENCH_WARMUP_EVENTS
 * (default BENCH_EVENTS) over HTTP and then over gRPC, printed as their own
 * table and not counted: a process just started spends its first seconds
 * compiling its hot code and sizing its heap, which a service that runs for
 * days pays once (docs/performance.md, "Warm processes"). BENCH_WARMUP_EVENTS=0
 * measures cold processes, as until 2026-11-29.
 *
 * Size with BENCH_EVENTS (default 1,000,000 per phase) and BENCH_BATCH
 * (events per request or chunk, default 10,000), BENCH_LOAD_EVENTS (the log-only and
 * mixed phases' events, default BENCH_EVENTS / 4). BENCH_SHAPE=split (default)
 * runs the ingest and writer targets as two processes, as deployed;
 * BENCH_SHAPE=all runs the single `all` process of `npm start`; BENCH_SHAPE=compare
 * runs both in alternating rounds and compares them (compareShapes).
 */
import type { StackServer } from '../../deploy/local-stack/stack-servers.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import {
  openBenchEnvironment,
  percentile,
  progress,
  round,
  type BenchEnvironment,
  type BenchService,
} from './bench-environment.js';
import { settle } from './influx-engine.js';
import { LagProbe } from './lag-probe.js';
import { logLoad, mixedLoad, type StorageLoad } from './storage-load.js';
import {
  CpuMeter,
  cpuPerEvent,
  cpuSecondsOf,
  cpuTable,
  ownCpuSeconds,
  peakRss,
  rssBytesOf,
  type CpuPhase,
} from './process-cpu.js';
import {
  basicAuthorization,
  eventFields,
  grpcChunks,
  ndjsonBodies,
  ndjsonBody,
  postBatches,
  postUntilAccepted,
  streamChunks,
  waitUntilStored,
} from './scalar-load.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const WARMUP_EVENTS = Number(process.env.BENCH_WARMUP_EVENTS ?? EVENTS);
/** Events of the log-only and of the mixed phase; smaller to profile the scalar phases alone. */
const LOAD_EVENTS = Number(process.env.BENCH_LOAD_EVENTS ?? EVENTS / 4);
const CONCURRENCY = 4;
/** InfluxDB counts as done with a phase's points after this long with its cache empty and no compaction. */
const INFLUX_QUIET_SECONDS = 3;
/** BENCH_SHAPE=compare reports no InfluxDB cost: its phases do not wait for InfluxDB to be done. */
const SETTLE_INFLUX = process.env.BENCH_SHAPE !== 'compare';

interface PhaseResult extends CpuPhase {
  eventsPerSecond: number;
  ackMs: number[];
  lagMs: number[];
  /** InfluxDB CPU seconds of the lag probe's queries (replayed after the phase): the benchmark's, not the pipeline's. */
  probeInfluxSeconds: number;
  probeQueries: number;
}

async function rawInfluxBaseline(
  influxUrl: string,
  meter: CpuMeter,
): Promise<{ pointsPerSecond: number; influxCpuUs: number }> {
  const store = new InfluxStore({ url: influxUrl, database: 'bench_raw' });
  await store.ensureDatabase();
  const bodies: string[] = [];
  for (let start = 0; start < EVENTS; start += BATCH) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(EVENTS, start + BATCH); i++) {
      const e = eventFields('raw', i);
      lines.push(
        `scalar,c=bench,e=${e.task},m=${e.metric},n=t,v=${e.variant} y=${e.value},ts=${1718000000000 + i}i,at=1718000000000i,w="bench",q=${i}i ${e.iter}`,
      );
    }
    bodies.push(lines.join('\n'));
  }
  progress(`raw InfluxDB baseline: ${EVENTS} points in ${bodies.length} batches, 2 writers`);
  meter.start();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < bodies.length) await store.write(bodies[next++]!);
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  // The points' whole cost: their cache written to TSM files and compacted, as the pipeline phases count it.
  await settle(influxUrl, "the baseline's points on disk and compacted", INFLUX_QUIET_SECONDS);
  const { samples } = meter.stop();
  return {
    pointsPerSecond: EVENTS / elapsed,
    influxCpuUs: cpuPerEvent({ name: 'raw', events: EVENTS, samples, clientSeconds: 0 }),
  };
}

const storedBy = (service: BenchService) =>
  waitUntilStored(service.env.NATS_URL!, service.env.NATS_STREAM_PREFIX ?? 'clearml');

/**
 * One measured phase: `send` delivers the load (reporting each acknowledged request),
 * then the phase waits until everything is stored. CPU of every process, events/s over
 * `sent` (the measured events; `stored` adds the marker events), ack latencies, and the
 * visibility lags when a probe watches the markers.
 */
async function measuredPhase(
  name: string,
  counts: { sent: number; stored: number },
  service: BenchService,
  meter: CpuMeter,
  send: (acked: (marker: string, ms: number) => void) => Promise<void>,
  probe?: LagProbe,
): Promise<PhaseResult> {
  const ackMs: number[] = [];
  const clientBefore = ownCpuSeconds();
  meter.start();
  const started = performance.now();
  await send((marker, ms) => {
    ackMs.push(ms);
    probe?.acked(marker);
  });
  await storedBy(service);
  const elapsed = (performance.now() - started) / 1000;
  await probe?.close();
  const cpu = measured(meter, clientBefore);
  const influx = cpu.samples.find((s) => s.label === 'influxdb');
  if (influx && SETTLE_INFLUX) {
    // InfluxDB writes a phase's points to TSM files and compacts them after the phase: counted with the phase
    // (and the raw baseline alike), not with the next one.
    const before = cpuSecondsOf(influx.pid);
    await settle(service.env.INFLUX_URL!, `the ${name} phase's points on disk and compacted`, INFLUX_QUIET_SECONDS);
    const after = cpuSecondsOf(influx.pid);
    if (before !== undefined && after !== undefined) influx.seconds += after - before;
  }
  // After the wait: InfluxDB does nothing else while they run again, so its CPU meanwhile is theirs alone.
  const probeInfluxSeconds = (await probe?.influxSecondsOf(influx?.pid)) ?? 0;
  return {
    name,
    events: counts.stored,
    ...cpu,
    eventsPerSecond: counts.sent / elapsed,
    ackMs,
    lagMs: probe?.lags ?? [],
    probeInfluxSeconds,
    probeQueries: probe?.queries.length ?? 0,
  };
}

async function httpPhase(
  service: BenchService,
  influx: InfluxStore,
  meter: CpuMeter,
  phase = 'http',
  events = EVENTS,
): Promise<PhaseResult> {
  const bodies = ndjsonBodies(phase, events, BATCH);
  progress(`HTTP NDJSON: ${events} events in ${bodies.length} requests, ${CONCURRENCY} in flight`);
  const probe = new LagProbe(influx);
  return measuredPhase(
    'HTTP',
    { sent: events, stored: events + bodies.length },
    service,
    meter,
    (acked) => postBatches(service.baseUrl, basicAuthorization(service.credential), bodies, CONCURRENCY, acked),
    probe,
  );
}

async function grpcPhase(
  service: BenchService,
  influx: InfluxStore,
  meter: CpuMeter,
  phase = 'grpc',
  events = EVENTS,
): Promise<PhaseResult> {
  const chunks = grpcChunks(phase, events, BATCH);
  progress(`gRPC StreamEvents: ${events} events in ${chunks.length} chunks`);
  const probe = new LagProbe(influx);
  return measuredPhase(
    'gRPC',
    { sent: events, stored: events + chunks.length },
    service,
    meter,
    (acked) => streamChunks(`127.0.0.1:${service.grpcPort}`, basicAuthorization(service.credential), chunks, acked),
    probe,
  );
}

/**
 * The same accounting for other SDK-shaped loads over HTTP (test/bench/storage-load.ts):
 * log lines only, and a training run's mix of scalars, log lines, debug images and plots.
 * Bodies are built before the clock starts; four clients send them on kept-alive
 * connections, as the SDK's session does.
 */
async function loadPhase(
  name: string,
  load: StorageLoad,
  service: BenchService,
  meter: CpuMeter,
): Promise<PhaseResult> {
  const bodies = Array.from({ length: load.bodies }, (_, n) => ({ body: load.body(n), marker: '' }));
  progress(`${name}: ${load.events} events in ${bodies.length} requests, ${CONCURRENCY} in flight`);
  return measuredPhase(name, { sent: load.events, stored: load.events }, service, meter, (acked) =>
    postBatches(service.baseUrl, basicAuthorization(service.credential), bodies, CONCURRENCY, acked),
  );
}

const MEMORY_CLIENTS = Number(process.env.BENCH_MEMORY_CLIENTS ?? 32);
const MEMORY_BODY_BYTES = Number(process.env.BENCH_MEMORY_BODY_MIB ?? 15) * 1024 * 1024;

/**
 * Ingest memory under many large requests: MEMORY_CLIENTS clients each send one add_batch
 * body of MEMORY_BODY_BYTES at once (each different, so that none is a duplicate of another),
 * re-sending on 429/503 like the SDK; the ingest process's RSS is sampled until all are stored.
 */
async function memoryPhase(
  service: BenchService,
): Promise<{ peakRssMb: number; startRssMb: number; refusals: number; parts: string; cpuUsPerEvent: number }> {
  const lineBytes = ndjsonBody('mem', 0, 1000, 'mem-probe').length / 1001;
  const perBody = Math.floor(MEMORY_BODY_BYTES / lineBytes);
  const bodies = Array.from({ length: MEMORY_CLIENTS }, (_, c) => ndjsonBody(`mem${c}`, 0, perBody, `mem${c}-mk`));
  progress(
    `memory: ${MEMORY_CLIENTS} clients at once, each one add_batch of ${((perBody * lineBytes) / 1024 / 1024).toFixed(1)} MiB (${perBody} events)`,
  );
  const startRss = rssBytesOf(service.pid) ?? 0;
  // The spill path's cost: the process's own CPU over the phase (its events never take the throughput phases' path).
  const cpuBefore = cpuSecondsOf(service.pid) ?? NaN;
  const sampler = peakRss(service.pid);
  const parts = peakMemoryParts(service.baseUrl);
  const refusals = await Promise.all(
    bodies.map((body) => postUntilAccepted(service.baseUrl, basicAuthorization(service.credential), body)),
  );
  await storedBy(service);
  const cpuSeconds = (cpuSecondsOf(service.pid) ?? NaN) - cpuBefore;
  const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);
  const { first, peaks } = await parts.stop();
  return {
    peakRssMb: mb(sampler.stop()),
    startRssMb: mb(startRss),
    refusals: refusals.reduce((a, b) => a + b, 0),
    cpuUsPerEvent: round((cpuSeconds * 1e6) / (perBody * MEMORY_CLIENTS), 2),
    parts: Object.entries(peaks)
      .map(([name, value]) =>
        COUNTED_PARTS.has(name)
          ? `${name} ${first[name] ?? 0} -> ${value}`
          : `${name} ${mb(first[name] ?? 0)} -> ${mb(value)} MB`,
      )
      .join(', '),
  };
}

/** What the process's own metrics say at their peaks while the memory phase runs (the V8 heap, memory outside it, the encoded events held): where the RSS goes. */
const MEMORY_PARTS: Record<string, string> = {
  'heap total': 'nodejs_heap_size_total_bytes',
  external: 'nodejs_external_memory_bytes',
  'events held in memory': 'clearml_ingest_memory_bytes',
  'full collections for dead buffers': 'clearml_ingest_buffer_collections_total',
};
/** Parts that are counts, not bytes. */
const COUNTED_PARTS = new Set(['full collections for dead buffers']);
function peakMemoryParts(baseUrl: string): {
  stop(): Promise<{ first: Record<string, number>; peaks: Record<string, number> }>;
} {
  const peaks: Record<string, number> = {};
  let first: Record<string, number> | undefined;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const text = await fetch(`${baseUrl}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      for (const [part, name] of Object.entries(MEMORY_PARTS)) {
        // Every sample of the metric added up (a counter by label, a gauge alone).
        const samples = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'gm'))];
        const value = samples.length === 0 ? NaN : samples.reduce((sum, m) => sum + Number(m[1]), 0);
        if (Number.isFinite(value)) peaks[part] = Math.max(peaks[part] ?? 0, value);
      }
      first ??= { ...peaks };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      return { first: first ?? {}, peaks };
    },
  };
}

/** The CPU each process spent since meter.start(): the probe's InfluxDB queries included (they are small: one per 10 ms). */
function measured(meter: CpuMeter, clientBefore: number): Pick<CpuPhase, 'samples' | 'clientSeconds'> {
  const { samples, restarted } = meter.stop();
  if (restarted.length > 0) throw new Error(`processes restarted during the phase: ${restarted.join(', ')}`);
  return { samples, clientSeconds: ownCpuSeconds() - clientBefore };
}

/** The pipeline's processes, as the issue counts them: InfluxDB apart (it is compared with the raw baseline). */
const PIPELINE = new Set(['ingest', 'writer', 'all', 'nats', 'redis']);
/** The processes item 1 counts, as a filter of CPU samples. */
const pipeline = (label: string) => PIPELINE.has(label);

const median = (values: number[]) => percentile(values, 50);

/**
 * BENCH_SHAPE=compare: is `npm start`'s single process the split shape's
 * equal? One phase is ~10 s and its lag p99 comes from 100 markers, so a
 * single pair of runs swings either way (docs/performance.md); this runs
 * BENCH_ROUNDS rounds (default 3), each the HTTP and gRPC phases on the
 * split shape and then on `all` (the order alternating between rounds), on
 * one stack, and compares medians. Last line: `shapes
 * all_over_split_http=<x> all_over_split_grpc=<y> lag_p99_ms_all_http=<a>
 * lag_p99_ms_split_http=<b> lag_p99_ms_all_grpc=<c> lag_p99_ms_split_grpc=<d>`.
 */
async function compareShapes(environment: BenchEnvironment): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const influx = new InfluxStore({ url: environment.stack.influxUrl, database: 'clearml' });
  const results: Record<'all' | 'split', { http: PhaseResult[]; grpc: PhaseResult[] }> = {
    all: { http: [], grpc: [] },
    split: { http: [], grpc: [] },
  };
  for (let n = 0; n < rounds; n++) {
    const order: Array<'all' | 'split'> = n % 2 === 0 ? ['split', 'all'] : ['all', 'split'];
    for (const shape of order) {
      const service = await environment.startService(shape === 'all' ? 'all' : 'ingest');
      const writer = shape === 'all' ? undefined : await environment.startService('writer');
      const pids: Record<string, number> = writer ? { ingest: service.pid, writer: writer.pid } : { all: service.pid };
      const meter = new CpuMeter(
        (label) => pids[label] ?? environment.stack.pidOf(label as StackServer),
        [...Object.keys(pids), 'nats', 'redis', 'influxdb'],
      );
      const http = await httpPhase(service, influx, meter, `http-${shape}-${n}`);
      const grpc = await grpcPhase(service, influx, meter, `grpc-${shape}-${n}`);
      results[shape].http.push(http);
      results[shape].grpc.push(grpc);
      progress(
        `round ${n + 1} ${shape}: HTTP ${Math.round(http.eventsPerSecond)} events/s lag p99 ${round(percentile(http.lagMs, 99))} ms; gRPC ${Math.round(grpc.eventsPerSecond)} events/s lag p99 ${round(percentile(grpc.lagMs, 99))} ms`,
      );
      await writer?.stop();
      await service.stop();
    }
  }
  const rate = (shape: 'all' | 'split', via: 'http' | 'grpc') =>
    median(results[shape][via].map((p) => p.eventsPerSecond));
  const lag = (shape: 'all' | 'split', via: 'http' | 'grpc') =>
    round(median(results[shape][via].map((p) => percentile(p.lagMs, 99))));
  process.stdout.write(
    [
      `| median of ${rounds} rounds | split | all | all / split |`,
      '|---|---:|---:|---:|',
      ...(['http', 'grpc'] as const).flatMap((via) => [
        `| ${via} events/s | ${Math.round(rate('split', via))} | ${Math.round(rate('all', via))} | ${round(rate('all', via) / rate('split', via), 3)} |`,
        `| ${via} lag p99 ms | ${lag('split', via)} | ${lag('all', via)} | ${round(lag('all', via) / lag('split', via), 3)} |`,
      ]),
      `shapes all_over_split_http=${round(rate('all', 'http') / rate('split', 'http'), 3)} all_over_split_grpc=${round(rate('all', 'grpc') / rate('split', 'grpc'), 3)} lag_p99_ms_all_http=${lag('all', 'http')} lag_p99_ms_split_http=${lag('split', 'http')} lag_p99_ms_all_grpc=${lag('all', 'grpc')} lag_p99_ms_split_grpc=${lag('split', 'grpc')}`,
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const environment = await openBenchEnvironment();
  if (process.env.BENCH_SHAPE === 'compare') {
    try {
      await compareShapes(environment);
    } finally {
      await environment.close();
    }
    return;
  }
  try {
    const { stack } = environment;
    const baseline = await rawInfluxBaseline(
      stack.influxUrl,
      new CpuMeter(() => stack.pidOf('influxdb'), ['influxdb']),
    );
    const raw = baseline.pointsPerSecond;
    progress(`raw InfluxDB writes: ${Math.round(raw)} points/s, influxd ${baseline.influxCpuUs} µs of CPU a point`);
    const shape = process.env.BENCH_SHAPE ?? 'split';
    const service = await environment.startService(shape === 'all' ? 'all' : 'ingest');
    const writer = shape === 'all' ? undefined : await environment.startService('writer');
    progress(`service shape: ${shape === 'all' ? 'one all process' : 'an ingest process and a writer process'}`);
    const pids: Record<string, number | undefined> = writer
      ? { ingest: service.pid, writer: writer.pid }
      : { all: service.pid };
    const meter = new CpuMeter(
      (label) => pids[label] ?? stack.pidOf(label as StackServer),
      [...Object.keys(pids), 'nats', 'redis', 'influxdb'],
    );
    const influx = new InfluxStore({ url: stack.influxUrl, database: 'clearml' });
    if (WARMUP_EVENTS > 0) {
      const warmup = [
        await httpPhase(service, influx, meter, 'http-warmup', WARMUP_EVENTS),
        await grpcPhase(service, influx, meter, 'grpc-warmup', WARMUP_EVENTS),
      ];
      process.stdout.write(
        `Warm-up, not counted (CPU per event of the processes just started, from /proc):\n${cpuTable(warmup)}\n` +
          `warmup cpu_us_http=${cpuPerEvent(warmup[0]!, pipeline)} cpu_us_grpc=${cpuPerEvent(warmup[1]!, pipeline)}\n`,
      );
    }
    const viaHttp = await httpPhase(service, influx, meter);
    progress(
      `HTTP end to end: ${Math.round(viaHttp.eventsPerSecond)} events/s, ack p50 ${round(percentile(viaHttp.ackMs, 50))} ms p99 ${round(percentile(viaHttp.ackMs, 99))} ms, lag p99 ${round(percentile(viaHttp.lagMs, 99))} ms`,
    );
    const viaGrpc = await grpcPhase(service, influx, meter);
    progress(
      `gRPC end to end: ${Math.round(viaGrpc.eventsPerSecond)} events/s, ack p50 ${round(percentile(viaGrpc.ackMs, 50))} ms p99 ${round(percentile(viaGrpc.ackMs, 99))} ms, lag p99 ${round(percentile(viaGrpc.lagMs, 99))} ms`,
    );
    const logs = await loadPhase('logs', logLoad(LOAD_EVENTS, 20), service, meter);
    const mixed = await loadPhase('mixed', mixedLoad(LOAD_EVENTS, 20), service, meter);
    for (const phase of [logs, mixed])
      progress(
        `${phase.name}: ${Math.round(phase.eventsPerSecond)} events/s, ack p50 ${round(percentile(phase.ackMs, 50))} ms p99 ${round(percentile(phase.ackMs, 99))} ms`,
      );
    const ackP99 = percentile([...viaHttp.ackMs, ...viaGrpc.ackMs], 99);
    const lagP99 = percentile([...viaHttp.lagMs, ...viaGrpc.lagMs], 99);
    const memory = await memoryPhase(service);
    progress(
      `memory: ${writer ? 'ingest' : 'all'} process RSS ${memory.startRssMb} MB before, peak ${memory.peakRssMb} MB; ${memory.refusals} answers 429/503 re-sent; ${memory.cpuUsPerEvent} µs of its CPU an event; peaks of ${memory.parts}`,
    );
    process.stdout.write(
      `CPU per event by process (from /proc; the load client apart):\n${cpuTable([viaHttp, viaGrpc, logs, mixed])}\n`,
    );
    // InfluxDB's CPU a point of the pipeline's writes against the raw baseline's, the lag probe's queries taken
    // out (they are the benchmark's; `influx_cost_ratio_with_probe` keeps them).
    const influxCostWithProbe = (phase: PhaseResult) =>
      cpuPerEvent(phase, (label) => label === 'influxdb') / baseline.influxCpuUs;
    const influxCost = (phase: PhaseResult) =>
      influxCostWithProbe(phase) - ((phase.probeInfluxSeconds / phase.events) * 1e6) / baseline.influxCpuUs;
    for (const phase of [viaHttp, viaGrpc])
      progress(
        `${phase.name}: the lag probe's ${phase.probeQueries} queries cost InfluxDB ${round(phase.probeInfluxSeconds * 1000)} ms of CPU (replayed), ${round((phase.probeInfluxSeconds / phase.events) * 1e6, 2)} µs a stored event; InfluxDB per point ${round(influxCost(phase), 3)}x the raw baseline without them, ${round(influxCostWithProbe(phase), 3)}x with them`,
      );
    process.stdout.write(
      `ingest cpu_us_http=${cpuPerEvent(viaHttp, pipeline)} cpu_us_grpc=${cpuPerEvent(viaGrpc, pipeline)} influx_cost_ratio=${round(Math.max(influxCost(viaHttp), influxCost(viaGrpc)), 3)} influx_cost_ratio_with_probe=${round(Math.max(influxCostWithProbe(viaHttp), influxCostWithProbe(viaGrpc)), 3)} ratio_http=${round(viaHttp.eventsPerSecond / raw, 3)} ratio_grpc=${round(viaGrpc.eventsPerSecond / raw, 3)} ack_p99_ms=${round(ackP99, 1)} lag_p99_ms=${round(lagP99, 1)} ingest_peak_rss_mb=${memory.peakRssMb} cpu_us_logs=${cpuPerEvent(logs, pipeline)} cpu_us_mixed=${cpuPerEvent(mixed, pipeline)}\n`,
    );
  } finally {
    await environment.close();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`benchmark failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
