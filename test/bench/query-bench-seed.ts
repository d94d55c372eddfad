/**
 * The benchmark's data: one task with 1M scalar points in 10 series, 200k
 * log lines, 2k plots and 5k debug images, plus single values.
 *
 * Everything goes through events.add_batch and the writers, scalars
 * iteration by iteration as the SDK reports them, so that InfluxDB's files
 * and the statistics the writers keep (last_metrics: counts, first and last
 * iterations, which the reads use) are what production has. Until
 * 2026-12-01 the scalars were written straight into InfluxDB in ingest's
 * layout, one series after the other, with one event a series through
 * ingest: last_metrics then counted 2 events a series. Once written, the
 * benchmark waits until InfluxDB holds it in its files and is done compacting them (untilInfluxSettled).
 */

import type { InfluxStore } from '../../shared/stores/influx-store.js';
import { seriesOf } from '../../query/events/store/influx-rows.js';
import { progress } from './bench-environment.js';

export const SERIES = [
  ['loss', 'train'],
  ['loss', 'val'],
  ['acc', 'train'],
  ['acc', 'val'],
  ['lr', 'lr'],
  ['grad', 'l1'],
  ['grad', 'l2'],
  ['grad', 'l3'],
  [':monitor:machine', 'cpu'],
  [':monitor:machine', 'mem'],
] as const;

export interface SeedPlan {
  task: string;
  company: string;
  points: number;
  logs: number;
  plots: number;
  images: number;
  singleValues: number;
  t0: number;
}

export type Post = (operation: string, body: unknown, contentType?: string) => Promise<any>;

const CHUNK = 20_000;

async function addBatch(post: Post, events: object[]): Promise<void> {
  for (let i = 0; i < events.length; i += CHUNK) {
    const body = events
      .slice(i, i + CHUNK)
      .map((e) => JSON.stringify(e))
      .join('\n');
    const data = await post('events.add_batch', body, 'application/json-lines');
    if (data.errors !== 0) throw new Error(`seeding rejected events: ${JSON.stringify(data.errors_info)}`);
  }
}

const seriesValue = (s: number, i: number) => Math.sin(i / 500) * (s + 1) + (i % 97 === 0 ? 5 : 0);

export async function seed(plan: SeedPlan, post: Post, progress: (line: string) => void): Promise<void> {
  const { task, t0 } = plan;
  progress(`seeding task ${task}: registering it and its ${SERIES.length} series through ingest`);
  await addBatch(post, [
    ...SERIES.map(([metric, variant]) => ({
      type: 'training_stats_scalar',
      task,
      metric,
      variant,
      iter: 0,
      value: 0,
      timestamp: t0,
      ...(metric === 'loss' ? { x_axis_label: 'step' } : {}),
    })),
    ...Array.from({ length: plan.singleValues }, (_, i) => ({
      type: 'training_stats_scalar',
      task,
      metric: 'Summary',
      variant: `sv${i}`,
      iter: -2147483648,
      value: i,
    })),
  ]);

  const perSeries = Math.floor(plan.points / SERIES.length);
  progress(`sending ${perSeries * SERIES.length} scalar events through events.add_batch, every series each iteration`);
  const started = performance.now();
  // Iteration by iteration, every series each, as the SDK reports them; one chunk of events held at a time.
  const perChunk = Math.floor(CHUNK / SERIES.length);
  for (let from = 1; from < perSeries; from += perChunk) {
    const events: object[] = [];
    for (let i = from; i < Math.min(perSeries, from + perChunk); i++)
      SERIES.forEach(([metric, variant], s) =>
        events.push({
          type: 'training_stats_scalar',
          task,
          metric,
          variant,
          iter: i,
          value: seriesValue(s, i),
          timestamp: t0 + i * 100,
        }),
      );
    await addBatch(post, events);
    const sent = Math.min(perSeries, from + perChunk);
    if (Math.floor(sent / 20_000) > Math.floor(from / 20_000)) progress(`  ${sent * SERIES.length} events sent`);
  }
  progress(`  ${perSeries * SERIES.length} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  progress(`sending ${plan.logs} log lines through events.add_batch`);
  await addBatch(
    post,
    Array.from({ length: plan.logs }, (_, i) => ({
      type: 'log',
      task,
      level: 'info',
      msg: `line ${i}: epoch ${Math.floor(i / 1000)} step ${i % 1000} loss=${(1 / (i + 1)).toFixed(6)}`,
      timestamp: t0 + i * 5,
    })),
  );
  progress(`sending ${plan.plots} plots and ${plan.images} debug images through events.add_batch`);
  const plotStr = JSON.stringify({
    data: [
      { x: Array.from({ length: 50 }, (_, i) => i), y: Array.from({ length: 50 }, (_, i) => i * i), type: 'scatter' },
    ],
    layout: { title: 'bench' },
  });
  await addBatch(post, [
    ...Array.from({ length: plan.plots }, (_, i) => ({
      type: 'plot',
      task,
      iter: Math.floor(i / 4) * 10,
      metric: 'plots',
      variant: `p${i % 4}`,
      plot_str: plotStr,
      timestamp: t0 + i,
    })),
    ...Array.from({ length: plan.images }, (_, i) => {
      const key = `bench/${task}/metrics/samples/v${i % 5}/img_${String(i % 100).padStart(8, '0')}.png`;
      return {
        type: 'training_debug_image',
        task,
        iter: Math.floor(i / 5) * 10,
        metric: 'samples',
        variant: `v${i % 5}`,
        key,
        url: `https://files.example.com/${key}`,
        timestamp: t0 + i,
      };
    }),
  ]);
}

/**
 * A task with `variants` scalar series of one point each (in 100 metrics): what a model with
 * per-class metrics reports. Its listing reads show whether they cost what they answer or a pass
 * over every variant (docs/events-read.md, "Metric listings kept between reads").
 */
export async function seedWide(task: string, variants: number, t0: number, post: Post): Promise<void> {
  await addBatch(
    post,
    Array.from({ length: variants }, (_, i) => ({
      type: 'training_stats_scalar',
      task,
      metric: `class-metric-${i % 100}`,
      variant: `class-${i}`,
      iter: 0,
      value: i,
      timestamp: t0,
    })),
  );
}

/**
 * Waits (at most `waitSeconds`) until InfluxDB's write cache is empty in every shard and no
 * compaction runs or waits: until then every query copies the cached points of the series it
 * touches, and a compaction takes one of the machine's cores from whatever is measured.
 */
export async function untilInfluxSettled(influx: InfluxStore, waitSeconds: number): Promise<void> {
  const deadline = performance.now() + waitSeconds * 1000;
  const started = performance.now();
  let quiet = 0;
  for (;;) {
    const cached = sumOf(await influx.query(`SHOW STATS FOR 'tsm1_cache'`), (name) => name === 'memBytes');
    // Compactions running or planned, in every shard (InfluxDB plans them each second).
    const compacting = sumOf(await influx.query(`SHOW STATS FOR 'tsm1_engine'`), (name) =>
      /Compaction(s?Active|Queue)$/.test(name),
    );
    quiet = cached === 0 && compacting === 0 ? quiet + 1 : 0;
    // Idle over three polls in a row: a level compaction is planned within a second of the last.
    if (quiet === 3) {
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      return progress(`InfluxDB settled: write cache in TSM, no compaction running or queued (waited ${seconds} s)`);
    }
    if (performance.now() > deadline)
      return progress(
        `InfluxDB still caches ${cached} bytes and runs or queues ${compacting} compactions after ${waitSeconds} s: measuring anyway`,
      );
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The sum over every series of a SHOW STATS answer of the columns `counts` picks. */
function sumOf(results: Awaited<ReturnType<InfluxStore['query']>>, counts: (column: string) => boolean): number {
  let sum = 0;
  for (const series of seriesOf(results))
    series.columns.forEach((column, i) => {
      if (counts(column)) sum += Number(series.values[0]?.[i] ?? 0);
    });
  return sum;
}
