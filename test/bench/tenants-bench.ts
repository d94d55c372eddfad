/**
 * `npm run bench:tenants`: does one company's flood hold up another
 * company's events? Company A sends SDK-shaped scalar add_batch bodies from
 * BENCH_FLOOD_CLIENTS clients (default 8) for BENCH_FLOOD_SECONDS (default
 * 40), as fast as it is answered, re-sending after Retry-After when refused;
 * company B sends one event every 250 ms and watches InfluxDB until it is
 * stored. Printed: the events stream's backlog every 2 s; B's visibility lag
 * (acknowledgement to stored) by 5-second window; A's answers; A's events
 * per second, counted until everything acknowledged is stored. Last line:
 * `tenants b_lag_p50_ms=<x> b_lag_p99_ms=<y> b_lag_max_ms=<z>
 * a_events_per_s=<a> a_refused=<n> max_backlog_mb=<m>`.
 *
 * BENCH_SHAPE=split (default) runs an ingest and a writer process, =all the
 * `all` process of `npm start`; BENCH_SERVICE_ENV configures the service
 * (INGEST_MAX_WRITER_LAG_MS=0 measures it without the writer lag gate).
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { connect } from 'nats';
import { streamName } from '../../shared/events/wire-format.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { openBenchEnvironment, percentile, progress, round } from './bench-environment.js';
import { basicAuthorization, ndjsonBody, postAddBatch, waitUntilStored } from './scalar-load.js';

const CLIENTS = Number(process.env.BENCH_FLOOD_CLIENTS ?? 8);
const SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 40);
const BATCH = 10_000;
const B_EVERY_MS = 250;
const WINDOW_S = 5;

async function main(): Promise<void> {
  const environment = await openBenchEnvironment();
  try {
    const a = { access_key: 'FLOODKEYA', secret_key: 'flood-a', company: 'company-a', user: 'user-a' };
    const b = { access_key: 'FLOODKEYB', secret_key: 'flood-b', company: 'company-b', user: 'user-b' };
    const credentialsFile = path.join(environment.dataDir, 'tenants.json');
    writeFileSync(credentialsFile, JSON.stringify([a, b]));
    const shape = process.env.BENCH_SHAPE ?? 'split';
    const env = { CREDENTIALS_FILE: credentialsFile };
    const service = await environment.startService(shape === 'all' ? 'all' : 'ingest', env);
    if (shape !== 'all') await environment.startService('writer', env);
    const url = `${service.baseUrl}/v2.23/events.add_batch`;
    const influx = new InfluxStore({ url: environment.stack.influxUrl, database: 'clearml' });
    const nc = await connect({ servers: environment.stack.natsUrl });
    const jsm = await nc.jetstreamManager();
    progress(
      `shape ${shape}; A: ${CLIENTS} clients sending ${BATCH}-event bodies for ${SECONDS} s; B: one event every ${B_EVERY_MS} ms`,
    );

    const started = performance.now();
    const elapsedS = () => (performance.now() - started) / 1000;
    let flooding = true;
    let next = 0;
    let acceptedA = 0;
    const answersA = new Map<number, number>();
    const flood = Array.from({ length: CLIENTS }, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (flooding) {
          const n = next++;
          // Each body its own tasks' events: never a re-send of another.
          const answer = await postAddBatch(
            url,
            basicAuthorization(a),
            ndjsonBody(`a${n}`, 0, BATCH, `a-mk${n}`),
            agent,
          );
          answersA.set(answer.status, (answersA.get(answer.status) ?? 0) + 1);
          if (answer.status === 200) acceptedA += BATCH + 1;
          else await new Promise((r) => setTimeout(r, answer.retryAfter * 1000));
        }
      } finally {
        agent.destroy();
      }
    });

    let maxBacklogBytes = 0;
    const backlog = (async () => {
      while (flooding) {
        const { state } = await jsm.streams.info(streamName('clearml'));
        maxBacklogBytes = Math.max(maxBacklogBytes, state.bytes);
        progress(`t=${round(elapsedS(), 1)} s: backlog ${state.messages} messages, ${round(state.bytes / 1e6, 1)} MB`);
        await new Promise((r) => setTimeout(r, 2_000));
      }
    })();

    const lags: Array<{ at: number; ms: number }> = [];
    const answersB = new Map<number, number>();
    const agentB = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const probes: Array<Promise<void>> = [];
    for (let i = 0; elapsedS() < SECONDS; i++) {
      const marker = `b-mk${i}`;
      const at = elapsedS();
      const body = Buffer.from(
        `{"type": "training_stats_scalar", "task": "${marker}", "iter": 0, "metric": "m", "variant": "v", "value": 1}`,
      );
      probes.push(
        (async () => {
          const answer = await postAddBatch(url, basicAuthorization(b), body, agentB);
          answersB.set(answer.status, (answersB.get(answer.status) ?? 0) + 1);
          if (answer.status !== 200) return;
          const acked = performance.now();
          for (;;) {
            const results = await influx.query(`SELECT LAST("y") FROM "scalar" WHERE "e"='${marker}'`);
            if ((results[0]?.series ?? []).length > 0) break;
            await new Promise((r) => setTimeout(r, 20));
          }
          lags.push({ at, ms: performance.now() - acked });
        })(),
      );
      await new Promise((r) => setTimeout(r, B_EVERY_MS));
    }
    flooding = false;
    await Promise.all(flood);
    await backlog;
    await Promise.all(probes);
    await waitUntilStored(environment.stack.natsUrl, 'clearml');
    const storedS = elapsedS();
    agentB.destroy();
    await nc.close();

    for (let from = 0; from < SECONDS; from += WINDOW_S) {
      const window = lags.filter((l) => l.at >= from && l.at < from + WINDOW_S).map((l) => l.ms);
      progress(
        `B's lag, events sent ${from}-${from + WINDOW_S} s: p50 ${round(percentile(window, 50))} ms, max ${round(Math.max(...window))} ms`,
      );
    }
    const all = lags.map((l) => l.ms);
    progress(
      `A's answers ${JSON.stringify(Object.fromEntries(answersA))}; B's ${JSON.stringify(Object.fromEntries(answersB))}`,
    );
    progress(`A: ${acceptedA} events acknowledged, all stored ${round(storedS, 1)} s after the start`);
    process.stdout.write(
      `tenants b_lag_p50_ms=${round(percentile(all, 50))} b_lag_p99_ms=${round(percentile(all, 99))} b_lag_max_ms=${round(Math.max(...all))} a_events_per_s=${Math.round(acceptedA / storedS)} a_refused=${[...answersA].filter(([s]) => s !== 200).reduce((n, [, c]) => n + c, 0)} max_backlog_mb=${round(maxBacklogBytes / 1e6, 1)}\n`,
    );
  } finally {
    await environment.close();
  }
}

await main();
