/**
 * `npm run bench:storage`: what an event costs on disk. Sends SDK-shaped
 * loads through the whole pipeline (`all` target, HTTP add_batch): log
 * lines, then scalars, then plots; after each, waits until every
 * acknowledged event is stored and InfluxDB has flushed its cache and
 * compacted, and measures:
 *
 * - per scalar event: the database's InfluxDB files (TSM, TSI index, series
 *   file, WAL) once level compactions have settled, and again after the full
 *   compaction of the idle shard; with the TSM bytes per field;
 * - per log line: Redis memory (used_memory) and the append-only file, as
 *   written and after a rewrite;
 * - per plot: the growth of the InfluxDB files, beside the plot's JSON size.
 *
 * Last line: `storage bytes_per_scalar=<x> bytes_per_log=<y>
 * bytes_per_plot=<z> bytes_per_log_aof=<w> plot_json_bytes=<v>`
 * (bytes_per_log: Redis memory; bytes_per_log_aof: after a rewrite).
 * Sizes: BENCH_STORAGE_SCALARS (10,000,000), BENCH_STORAGE_LOGS (1,000,000),
 * BENCH_STORAGE_PLOTS (10,000), over BENCH_STORAGE_TASKS tasks (100).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { createClient } from 'redis';
import { openBenchEnvironment, progress, round } from './bench-environment.js';
import { databaseDiskUsage, type DatabaseDiskUsage } from './influx-disk-usage.js';
import { basicAuthorization, postUntilAccepted, waitUntilStored } from './scalar-load.js';
import { logLoad, plotLoad, scalarLoad, type StorageLoad } from './storage-load.js';
import { settle } from './influx-engine.js';

const SCALARS = Number(process.env.BENCH_STORAGE_SCALARS ?? 10_000_000);
const LOGS = Number(process.env.BENCH_STORAGE_LOGS ?? 1_000_000);
const PLOTS = Number(process.env.BENCH_STORAGE_PLOTS ?? 10_000);
const TASKS = Number(process.env.BENCH_STORAGE_TASKS ?? 100);
const CONCURRENCY = 4;
const DATABASE = 'clearml';
/** Long enough to measure the level-compacted files first; InfluxDB's default is 4 h. */
const FULL_COMPACTION_COLD = 45;

async function send(name: string, load: StorageLoad, baseUrl: string, authorization: string): Promise<void> {
  progress(`${name}: ${load.events} events in ${load.bodies} add_batch bodies, ${CONCURRENCY} clients`);
  let next = 0;
  let refused = 0;
  let reported = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < load.bodies) {
        const body = load.body(next++);
        refused += await postUntilAccepted(baseUrl, authorization, body);
        if (next - reported >= load.bodies / 10) {
          reported = next;
          progress(`${name}: ${Math.round((next / load.bodies) * 100)}% sent`);
        }
      }
    }),
  );
  progress(`${name}: all acknowledged (${refused} answers to wait and retry)`);
}

function usageRows(usage: DatabaseDiskUsage, events: number): string[] {
  const per = (bytes: number) => round(bytes / events, 3);
  return [
    `| total | ${usage.total} | ${per(usage.total)} |`,
    `| TSM files | ${usage.tsm} | ${per(usage.tsm)} |`,
    `| TSI index (and fields.idx) | ${usage.tsi} | ${per(usage.tsi)} |`,
    `| series file (_series) | ${usage.seriesFile} | ${per(usage.seriesFile)} |`,
    `| WAL | ${usage.wal} | ${per(usage.wal)} |`,
  ];
}

function fieldRows(usage: DatabaseDiskUsage, measurement: string, events: number): string[] {
  const per = (bytes: number) => round(bytes / events, 3);
  return usage.fields
    .filter((f) => f.measurement === measurement)
    .map(
      (f) =>
        `| ${f.measurement}.${f.field} | ${f.blocks} | ${per(f.values)} | ${per(f.timestamps)} | ${per(f.index)} |`,
    );
}

function directoryBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).blocks * 512, 0);
}

async function main(): Promise<void> {
  const environment = await openBenchEnvironment({
    settings: { influxFullCompactionColdDuration: `${FULL_COMPACTION_COLD}s` },
  });
  // The run takes minutes: an interrupted one still stops the stack it started.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void environment.close().finally(() => process.exit(130)));
  const influxDir = path.join(environment.dataDir, 'stack', 'influxdb');
  const redis = createClient({ url: environment.stack.redisUrl });
  await redis.connect();
  const redisInfo = async (section: string, field: string) =>
    Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(await redis.info(section))?.[1]);
  try {
    const service = await environment.startService('all', { INFLUX_DB: DATABASE, LOG_LEVEL: 'warn' });
    const authorization = basicAuthorization(service.credential);
    const stored = () => waitUntilStored(service.env.NATS_URL!, service.env.NATS_STREAM_PREFIX ?? 'clearml');
    const redisDir = String((await redis.configGet('dir')).dir);
    const aofDir = path.join(redisDir, String((await redis.configGet('appenddirname')).appenddirname));

    // Log lines first, while Redis holds nothing else of size.
    const logs = logLoad(LOGS, TASKS);
    const memoryBefore = await redisInfo('memory', 'used_memory');
    const aofBefore = directoryBytes(aofDir);
    await send('log lines', logs, service.baseUrl, authorization);
    await stored();
    const memoryPerLog = ((await redisInfo('memory', 'used_memory')) - memoryBefore) / logs.events;
    const aofWrittenPerLog = (directoryBytes(aofDir) - aofBefore) / logs.events;
    await redis.bgRewriteAof();
    for (;;) {
      const persistence = await redis.info('persistence');
      if (/^aof_rewrite_in_progress:0/m.test(persistence) && /^aof_rewrite_scheduled:0/m.test(persistence)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const aofRewrittenPerLog = directoryBytes(aofDir) / logs.events;

    const scalars = scalarLoad(SCALARS, TASKS);
    await send('scalars', scalars, service.baseUrl, authorization);
    await stored();
    await settle(service.env.INFLUX_URL!, 'cache flushed, level compactions done', 5, DATABASE);
    const scalarLevel = databaseDiskUsage(influxDir, DATABASE);
    await settle(service.env.INFLUX_URL!, 'full compaction', FULL_COMPACTION_COLD + 15, DATABASE);
    const scalarFull = databaseDiskUsage(influxDir, DATABASE);

    const plots = plotLoad(PLOTS, TASKS);
    let plotJsonBytes = 0;
    const plotBodies: StorageLoad = {
      ...plots,
      body: (n) => {
        const body = plots.body(n);
        for (const line of body.toString().split('\n'))
          plotJsonBytes += (JSON.parse(line) as { plot_str: string }).plot_str.length;
        return body;
      },
    };
    await send('plots', plotBodies, service.baseUrl, authorization);
    await stored();
    await settle(service.env.INFLUX_URL!, 'full compaction after the plots', FULL_COMPACTION_COLD + 15, DATABASE);
    const afterPlots = databaseDiskUsage(influxDir, DATABASE);

    const bytesPerScalar = scalarFull.total / scalars.events;
    const bytesPerPlot = (afterPlots.total - scalarFull.total) / plots.events;
    const lines = [
      '',
      `### Scalars: ${scalars.events} events, ${TASKS} tasks × 20 series`,
      '',
      '| InfluxDB files | bytes after level compactions | per event | bytes after full compaction | per event |',
      '|---|---|---|---|---|',
      ...usageRows(scalarLevel, scalars.events).map((row, i) => {
        const full = usageRows(scalarFull, scalars.events)[i]!.split('|').slice(2, 4);
        return `${row}${full.join('|')}|`;
      }),
      '',
      "TSM bytes per event by field, after full compaction (values include each block's CRC and header):",
      '',
      '| field | blocks | values | timestamps | TSM index |',
      '|---|---|---|---|---|',
      ...fieldRows(scalarFull, 'scalar', scalars.events),
      '',
      `### Log lines: ${logs.events} lines`,
      '',
      `Redis memory ${round(memoryPerLog, 1)} bytes a line; append-only file ${round(aofWrittenPerLog, 1)} as written, ${round(aofRewrittenPerLog, 1)} after a rewrite.`,
      '',
      `### Plots: ${plots.events} plots, ${round(plotJsonBytes / plots.events, 0)} bytes of JSON each on average`,
      '',
      `InfluxDB files grew by ${afterPlots.total - scalarFull.total} bytes, ${round(bytesPerPlot, 1)} a plot. TSM bytes per plot by field:`,
      '',
      '| field | blocks | values | timestamps | TSM index |',
      '|---|---|---|---|---|',
      ...fieldRows(afterPlots, 'plot', plots.events),
      ...fieldRows(afterPlots, 'plot_body', plots.events),
      '',
      `storage bytes_per_scalar=${round(bytesPerScalar, 2)} bytes_per_log=${round(memoryPerLog, 1)} bytes_per_plot=${round(bytesPerPlot, 1)} bytes_per_log_aof=${round(aofRewrittenPerLog, 1)} plot_json_bytes=${round(plotJsonBytes / plots.events, 0)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await redis.quit();
    await environment.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
