/**
 * `npm run bench:reports`: reports.get_all_ex latency over one company with
 * many reports. Starts a throwaway stack and the query target in this
 * process, creates BENCH_REPORTS reports (default 10,000) with tags through
 * the API, then times a filtered, ordered, paged, projected get_all_ex
 * BENCH_QUERIES times (default 500) over HTTP; then the same query right
 * after a report write each time (the incremental cache refresh, and a
 * selection computed afresh: repeated queries over unchanged records reuse
 * theirs, query/reports/selection-memo.ts).
 * Last line: `reports get_all_ex_p50_ms=<x> p99_ms=<y> after_write_p50_ms=<a> after_write_p99_ms=<b>`.
 */
import http from 'node:http';
import { QueryDeps } from '../../query/query-deps.js';
import { reportsOperations } from '../../query/reports/reports-operations.js';
import { startService } from '../../shared/launcher/service.js';
import { targetModules } from '../../shared/launcher/target-modules.js';
import type { TargetModule } from '../../shared/launcher/target.js';
import { createLogger } from '../../shared/observability/logger.js';
import { openBenchEnvironment, percentile, progress } from './bench-environment.js';

const REPORTS = Number(process.env.BENCH_REPORTS ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const WRITE_QUERIES = Number(process.env.BENCH_WRITE_QUERIES ?? 100);
const CREATE_CONCURRENCY = 16;

const QUERY = {
  tags: ['t3'],
  order_by: ['-last_update'],
  page: 2,
  page_size: 50,
  only_fields: ['name', 'tags', 'status', 'last_update', 'project.name', 'user.name', 'system_tags'],
};

/** The query target with the reports operations, unless it already carries them. */
const queryWithReports: TargetModule = (services) => {
  const parts = targetModules.query(services);
  if ((parts.operations ?? []).some((o) => o.name === 'reports.create')) return parts;
  const deps = new QueryDeps(services.config, services.logger, services.stores, services.signingSecret);
  return { ...parts, operations: [...(parts.operations ?? []), ...reportsOperations(deps)] };
};

const agent = new http.Agent({ keepAlive: true, maxSockets: CREATE_CONCURRENCY });

function post(url: string, token: string, body: unknown): Promise<any> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          authorization: token,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (parsed.meta.result_code !== 200) reject(new Error(`${url}: ${parsed.meta.result_msg}`));
          else resolve(parsed.data);
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

async function main(): Promise<void> {
  const environment = await openBenchEnvironment();
  const credential = {
    access_key: 'BENCHKEY',
    secret_key: 'bench-secret',
    company: 'bench',
    user: 'bench-user',
    user_name: 'Bench User',
  };
  const config = environment.inProcessConfig(credential);
  const service = await startService({
    target: 'query',
    config,
    logger: createLogger({ level: config.LOG_LEVEL, name: 'reports-bench' }),
    modules: { ...targetModules, query: queryWithReports },
  });
  try {
    const base = `http://127.0.0.1:${service.httpPort}`;
    const auth = `Basic ${Buffer.from(`${credential.access_key}:${credential.secret_key}`).toString('base64')}`;
    const op = (name: string, body: unknown) => post(`${base}/${name}`, auth, body);

    progress(`creating ${REPORTS} reports (${CREATE_CONCURRENCY} concurrent requests)`);
    const ids: string[] = [];
    let next = 0;
    const createStarted = performance.now();
    await Promise.all(
      Array.from({ length: CREATE_CONCURRENCY }, async () => {
        while (next < REPORTS) {
          const i = next++;
          const { id } = await op('reports.create', {
            name: `report ${i}`,
            tags: [`t${i % 10}`, `g${i % 7}`],
            comment: `comment ${i}`,
          });
          ids.push(id);
          if (ids.length % 1000 === 0) progress(`  ${ids.length} reports created`);
        }
      }),
    );
    const createSeconds = (performance.now() - createStarted) / 1000;
    progress(
      `created ${REPORTS} reports in ${createSeconds.toFixed(1)} s (${Math.round(REPORTS / createSeconds)} per second)`,
    );
    // Spread last_update so the ordering has work to do.
    for (let i = 0; i < 200; i++) await op('reports.update', { task: ids[(i * 7919) % ids.length], report: `r${i}` });

    const first = performance.now();
    const sample = await op('reports.get_all_ex', QUERY);
    progress(
      `first query (cold cache) ${(performance.now() - first).toFixed(1)} ms, ${sample.tasks.length} records on the page`,
    );
    for (let i = 0; i < 20; i++) await op('reports.get_all_ex', QUERY);

    progress(`timing ${QUERIES} queries: ${JSON.stringify(QUERY)}`);
    const timings: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const started = performance.now();
      await op('reports.get_all_ex', QUERY);
      timings.push(performance.now() - started);
    }

    progress(`timing ${WRITE_QUERIES} queries, each right after a report update`);
    const afterWrite: number[] = [];
    for (let i = 0; i < WRITE_QUERIES; i++) {
      await op('reports.update', { task: ids[(i * 104729) % ids.length], comment: `changed ${i}` });
      const started = performance.now();
      await op('reports.get_all_ex', QUERY);
      afterWrite.push(performance.now() - started);
    }
    const writeP50 = percentile(afterWrite, 50).toFixed(2);
    const writeP99 = percentile(afterWrite, 99).toFixed(2);
    progress(`after a write: p50 ${writeP50} ms, p99 ${writeP99} ms`);

    const p50 = percentile(timings, 50).toFixed(2);
    const p99 = percentile(timings, 99).toFixed(2);
    progress(`get_all_ex over ${REPORTS} reports: p50 ${p50} ms, p99 ${p99} ms`);
    process.stdout.write(
      `reports get_all_ex_p50_ms=${p50} p99_ms=${p99} after_write_p50_ms=${writeP50} after_write_p99_ms=${writeP99}\n`,
    );
  } finally {
    agent.destroy();
    await service.stop();
    await environment.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exitCode = 1;
});
