/**
 * One fuzz run against a running service: set the world up, send the
 * generated requests (bounded concurrency, a deadline each, well-formed
 * traffic alongside, isolation canaries every few seconds), restart the
 * service after a crash (up to a limit), then check drain, read-back and
 * isolation. Shared by `npm run fuzz` and the seeded integration test.
 */
import fc from 'fast-check';
import { sendCase, type CaseOutcome, type FuzzCase, type SendContext } from './case-sender.js';
import { isolationViolations, waitForDrain, witnessPartitions, writerCounters } from './fuzz-checks.js';
import type { Finding, FuzzReport } from './fuzz-report.js';
import type { FuzzService, StackUrls } from './fuzz-service.js';
import { newWorld, setUpWorld } from './fuzz-setup.js';
import { grpcCaseArbitrary } from './grpc-case.js';
import { GrpcSender } from './grpc-sender.js';
import { httpCaseArbitrary } from './http-case-arbitraries.js';
import { fieldsOf, registeredOperations } from './operation-catalogue.js';
import { sendWellFormed } from './wellformed-lane.js';
import { readBack } from './witness-readback.js';
import { callIdOf, causesByCall } from './service-log.js';
import { WitnessLedger } from './witness-ledger.js';
import type { FuzzCompanion } from './fuzz-companion.js';

/** Node's default limit of an HTTP request's line and headers (the service keeps it). */

export interface FuzzOptions {
  requests: number;
  seed: number;
  timeLimitMs: number;
  concurrency: number;
  /** Per-request deadline: no complete answer within it is a hang. */
  deadlineMs: number;
  /** An answer later than this is reported as slow; the worker stops waiting for it and goes on. */
  slowMs: number;
  /** Requests waiting past `slowMs` at most at once (beyond it, workers wait). */
  maxLingering: number;
  drainDeadlineMs: number;
  readbackDeadlineMs: number;
  maxRestarts: number;
  skip: ReadonlySet<string>;
  /** Only these request indexes (reproducing a failure). */
  replay?: number[];
  /** One well-formed request after every n-th hostile one. */
  wellFormedEvery: number;
  progressEveryMs: number;
  log: (line: string) => void;
  /** Companion mode: the ClearML stand-in the service was started with (fuzz-companion.ts). */
  companion?: FuzzCompanion;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The seed of request `index`: each request is generated on its own, so index i is the same whatever N is. */
export function caseSeed(seed: number, index: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  return Math.imul(h, 0x27d4eb2f) | 0;
}

export function caseArbitrary(skip: ReadonlySet<string>) {
  const ops = registeredOperations();
  const entries = [...httpCaseArbitrary(ops, skip), ...grpcCaseArbitrary(skip)];
  if (entries.length === 0) throw new Error('every generator class is skipped');
  const unhinted = ops.flatMap((op) => fieldsOf(op).unhinted);
  return {
    ops,
    unhinted,
    arbitrary: fc.oneof(
      ...entries.map((e) => ({ weight: e.weight, arbitrary: e.arbitrary as fc.Arbitrary<FuzzCase> })),
    ),
  };
}

export async function runFuzz(service: FuzzService, stack: StackUrls, options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const { ops, unhinted, arbitrary } = caseArbitrary(options.skip);
  const world = newWorld(options.seed, service.credentials, service.authSecret);
  options.companion?.register(world);
  const ledger = new WitnessLedger(world);
  const limits = { maxBodyBytes: service.settings.maxBodyBytes, maxLineBytes: service.settings.maxLineBytes };
  const { partitions } = service.settings;
  let grpc = new GrpcSender(service.grpcPort, limits.maxBodyBytes);
  const ctx = (): SendContext => ({
    world,
    ledger,
    limits,
    port: service.apiPort,
    grpc,
    deadlineMs: options.deadlineMs,
  });

  options.log(`setting up: logins, reports, target data, scroll ids (seed ${options.seed})`);
  const setupProblems = (
    await setUpWorld(
      service.apiPort,
      world,
      options.deadlineMs,
      async () => void (await waitForDrain(stack.natsUrl, service.prefix, partitions, 30_000)),
      options.companion?.token.bind(options.companion),
    )
  ).map((p) => `${p.step}: ${p.answer}`);

  const report: FuzzReport = {
    requests: 0,
    status5xx: 0,
    hangs: 0,
    crashes: 0,
    ackedUnreadable: 0,
    partitionsStalled: 0,
    isolationViolations: [],
    notEnvelope: 0,
    lostToCrash: 0,
    findings: [],
    fuzzerErrors: [],
    slow: [],
    wellFormedRefused: [],
    crashRecords: [],
    stalled: [],
    stalledWitnesses: [],
    retriesGrowing: false,
    unreadable: [],
    readErrors: [],
    setupProblems,
    wellFormed: { requests: 0, events: 0, acked: 0 },
    coverage: Object.fromEntries(
      [...ops.map((op) => op.name), 'grpc.Add', 'grpc.AddBatch', 'grpc.StreamEvents'].map((name) => [name, 0]),
    ),
    unhinted,
    elapsedMs: 0,
  };

  const record = async (
    index: string,
    cls: string,
    op: string,
    outcome: CaseOutcome,
    crashesBefore: number,
  ): Promise<void> => {
    // A connection refused or reset is reported before the exit of the process that caused it: give the exit time to arrive.
    if (outcome.kind === 'dropped' && service.crashes.length === crashesBefore && service.serving) await sleep(1_000);
    if (outcome.kind !== 'answer' && (service.crashes.length > crashesBefore || !service.serving)) {
      report.lostToCrash++;
      return;
    }
    // An oversize request (413, or 431 for a head over Node's 16 KiB) is answered with a lingering close
    // (shared/http/unread-body.ts): a reset without its answer is a finding like any other.
    if (outcome.kind === 'hang' || outcome.kind === 'dropped') {
      report.hangs++;
      report.findings.push({ index, cls, op, what: outcome.kind, outcome });
    } else if (outcome.is5xx) {
      report.status5xx++;
      report.findings.push({ index, cls, op, what: '5xx', outcome });
    } else if (outcome.notEnvelope) {
      report.notEnvelope++;
      report.findings.push({ index, cls, op, what: 'not-envelope', outcome });
    }
  };

  let recovering: Promise<void> | undefined;
  let stop = false;
  const recover = async (): Promise<void> => {
    if (service.serving) return;
    recovering ??= (async () => {
      if (service.crashes.length > options.maxRestarts) {
        stop = true;
        report.stoppedEarly = `the service crashed ${service.crashes.length} times (--max-restarts ${options.maxRestarts})`;
        return;
      }
      options.log(`service exited (crash ${service.crashes.length}); restarting`);
      // Still starting up after an earlier restart: wait for it.
      while (service.alive && !service.serving) await sleep(100);
      await service.restart();
      grpc.close();
      grpc = new GrpcSender(service.grpcPort, limits.maxBodyBytes);
    })().finally(() => (recovering = undefined));
    await recovering;
  };

  const indexes = options.replay ?? Array.from({ length: options.requests }, (_, i) => i);
  const timeDeadline = started + options.timeLimitMs;
  let next = 0;
  let lastSent = 0;
  let lastTick = Date.now();
  const progress = setInterval(() => {
    const rate = ((report.requests - lastSent) * 1000) / Math.max(1, Date.now() - lastTick);
    lastSent = report.requests;
    lastTick = Date.now();
    options.log(
      `${report.requests}/${indexes.length} sent (${rate.toFixed(0)}/s) 5xx=${report.status5xx} hangs=${report.hangs} crashes=${service.crashes.length} well-formed acked=${ledger.acked().length}/${ledger.all().length}`,
    );
  }, options.progressEveryMs);
  let canaryBusy = false;
  const canary = setInterval(() => {
    if (canaryBusy || !service.serving) return;
    canaryBusy = true;
    void isolationViolations(service.apiPort, world, options.deadlineMs, false)
      .then((violations) =>
        report.isolationViolations.push(
          ...violations.map((v) => `during the run (after ${report.requests} requests): ${v}`),
        ),
      )
      .finally(() => (canaryBusy = false));
  }, 5_000);

  // Requests still unanswered after `slowMs` go on waiting (up to the deadline) while the worker moves on:
  // a loaded machine makes answers slow, and only what stays unanswered until the deadline is a hang.
  const lingering = new Set<Promise<void>>();
  const dispatch = async (
    send: () => Promise<CaseOutcome>,
    settle: (outcome: CaseOutcome) => Promise<void>,
    what: string,
  ): Promise<void> => {
    const done = send().then(
      async (outcome) => {
        if (outcome.kind === 'answer' && outcome.ms > options.slowMs) report.slow.push(`${what}: ${outcome.ms} ms`);
        await settle(outcome);
      },
      // A fault of the fuzzer itself (it could not build this request): reported, never taken for the service's.
      (error: unknown) => void report.fuzzerErrors.push(`${what}: ${(error as Error).stack ?? String(error)}`),
    );
    let timer: NodeJS.Timeout | undefined;
    const slow = await Promise.race([
      done.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), options.slowMs))),
    ]);
    clearTimeout(timer);
    if (!slow) return;
    lingering.add(done);
    void done.finally(() => lingering.delete(done));
    while (lingering.size >= options.maxLingering) await Promise.race(lingering);
  };

  const worker = async (): Promise<void> => {
    while (next < indexes.length && !stop) {
      if (Date.now() > timeDeadline) {
        report.stoppedEarly ??= `time limit (${options.timeLimitMs / 1000} s) reached after ${report.requests} requests`;
        return;
      }
      if (!service.serving) await recover();
      if (stop || next >= indexes.length) return;
      const i = indexes[next++]!;
      const c = fc.sample(arbitrary, { seed: caseSeed(options.seed, i), numRuns: 1 })[0]!;
      const crashesBefore = service.crashes.length;
      report.requests++;
      report.coverage[c.op] = (report.coverage[c.op] ?? 0) + 1;
      await dispatch(
        () => sendCase(c, ctx()),
        async (outcome) => {
          for (const sibling of outcome.siblings) sibling.request = i;
          await record(String(i), c.cls, c.op, outcome, crashesBefore);
          if (options.replay !== undefined)
            options.log(
              `#${i} [${c.cls}] ${outcome.request}\n   -> ${outcome.kind} ${outcome.status} ${outcome.answer} (${outcome.ms} ms)`,
            );
        },
        `#${i} [${c.cls}] ${c.op}`,
      );
      if (i % options.wellFormedEvery === 0 && options.replay === undefined) {
        const k = i / options.wellFormedEvery;
        const before = service.crashes.length;
        report.wellFormed.requests++;
        await dispatch(
          () => sendWellFormed(k, ctx()),
          async (outcome) => {
            if (outcome.siblings.some((e) => !e.acked))
              report.wellFormedRefused.push(
                `wf${k} ${outcome.request.slice(0, 200)} -> ${outcome.kind} ${outcome.status} ${outcome.answer.slice(0, 300)}`,
              );
            await record(`wf${k}`, 'well-formed', outcome.op ?? 'well-formed', outcome, before);
          },
          `wf${k}`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  await Promise.all([...lingering]);
  clearInterval(progress);
  clearInterval(canary);
  while (canaryBusy) await sleep(50);

  options.log(`sent ${report.requests} requests in ${Math.round((Date.now() - started) / 1000)} s; checking`);
  // The checks need a running service: one that died (or was left polluted and died later) is started again; its exits are counted.
  const ensureServing = async () => {
    if (!service.alive) await service.restart();
  };
  await ensureServing();
  if (!(await service.healthy())) report.crashes++;

  const busy = await waitForDrain(stack.natsUrl, service.prefix, partitions, options.drainDeadlineMs);
  const before = await writerCounters(service.apiPort);
  await sleep(3_000);
  const after = await writerCounters(service.apiPort);
  report.counters = after;
  report.retriesGrowing = before !== undefined && after !== undefined && after.retries > before.retries;
  report.stalled = busy;
  report.partitionsStalled = busy.length > 0 ? busy.length : report.retriesGrowing ? 1 : 0;
  const witnesses = witnessPartitions(world, partitions);
  report.stalledWitnesses = busy.flatMap((p) => witnesses.get(p.partition) ?? []);

  const readDeadline = Date.now() + options.readbackDeadlineMs;
  for (;;) {
    await ensureServing();
    const result = await readBack(service.apiPort, world, ledger, options.deadlineMs);
    report.unreadable = result.unreadable;
    report.readErrors = result.readErrors;
    if (result.unreadable.length === 0 || Date.now() > readDeadline) break;
    await sleep(1_000);
  }
  report.ackedUnreadable = report.unreadable.length;
  await ensureServing();
  report.isolationViolations.push(...(await isolationViolations(service.apiPort, world, options.deadlineMs, true)));

  const causes = causesByCall(service.logFile);
  for (const finding of report.findings) {
    const id = finding.what === '5xx' ? callIdOf(finding.outcome.answer) : undefined;
    if (id !== undefined) finding.cause = causes.get(id);
  }
  report.crashes += service.crashes.length;
  report.crashRecords = service.crashes;
  report.wellFormed.events = ledger.all().length;
  report.wellFormed.acked = ledger.acked().length;
  report.elapsedMs = Date.now() - started;
  grpc.close();
  return report;
}
