/**
 * The benchmark's data: one task with 1M scalar points in 10 series, 200k
 * log lines, 2k plots and 5k debug images, plus single values.
 *
 * The scalars are written straight into InfluxDB as line protocol in the
 * exact layout ingest produces (shared/events/storage-layout.ts), because
 * pushing 1M events through the whole pipeline would only measure ingest;
 * one event per series goes through the real ingest first, so the task is
 * registered and its metric listing and last_metrics exist as in
 * production. Everything else goes through events.add_batch.
 */
import { encodeTagValue, escapeTagValue } from '../../shared/events/storage-layout.js';
import type { InfluxStore } from '../../shared/stores/influx-store.js';

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

const tag = (value: string) => escapeTagValue(encodeTagValue(value));
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

export async function seed(
  plan: SeedPlan,
  post: Post,
  influx: InfluxStore,
  progress: (line: string) => void,
): Promise<void> {
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
  progress(
    `writing ${perSeries * SERIES.length} scalar points straight into InfluxDB (line protocol, the exact layout of ingest)`,
  );
  const started = performance.now();
  const at = Date.now();
  const jobs: Array<() => Promise<number>> = [];
  SERIES.forEach(([metric, variant], s) => {
    const prefix = `scalar,c=${tag(plan.company)},e=${tag(task)},m=${tag(metric)},n=t,v=${tag(variant)} `;
    for (let from = 0; from < perSeries; from += 10_000) {
      jobs.push(async () => {
        let body = '';
        for (let i = from; i < Math.min(perSeries, from + 10_000); i++) {
          const y = seriesValue(s, i);
          // q: arrival sequences far above the stream's, unique per point.
          body += `${prefix}y=${y},ts=${t0 + i * 100}i,at=${at}i,w="bench",q=${2 ** 40 + s * 10_000_000 + i}i ${i}\n`;
        }
        await influx.write(body);
        return Math.min(perSeries, from + 10_000) - from;
      });
    }
  });
  let done = 0;
  await Promise.all(
    [0, 1].map(async () => {
      for (let job = jobs.shift(); job; job = jobs.shift()) {
        const before = done;
        const written = await job();
        done += written;
        if (Math.floor(done / 200_000) > Math.floor(before / 200_000)) progress(`  ${done} points written`);
      }
    }),
  );
  progress(`  ${done} points in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The newest point of each series again through ingest (the same values: an overwrite), so that
  // what the writer keeps on the record at write time (the greatest iteration) covers the points.
  await addBatch(
    post,
    SERIES.map(([metric, variant], s) => {
      const i = perSeries - 1;
      return {
        type: 'training_stats_scalar',
        task,
        metric,
        variant,
        iter: i,
        value: seriesValue(s, i),
        timestamp: t0 + i * 100,
      };
    }),
  );

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
