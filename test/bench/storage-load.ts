/**
 * The SDK-shaped loads of bench:storage (and of bench:ingest's log and mixed
 * phases), shaped like what the ClearML SDK sends from a
 * training run, because what they cost on disk depends on their content:
 *
 * - scalars: tasks with 32-hex ids, 20 series each (5 metrics × 4 variants),
 *   every iteration reports each series once; an iteration takes ~250 ms
 *   (±25%), the series of one iteration a few ms apart; values follow
 *   noisy curves, of the precision training code gives them (scalarValue).
 *   One body per task flush of 25 iterations (500 events), tasks taking turns.
 * - log lines: console lines of a training script (progress lines with
 *   changing numbers, tqdm bars, an occasional long warning), 100 per body.
 * - plots: Plotly JSON as the SDK's report_line_plot, report_histogram and
 *   report_confusion_matrix produce it (1-6 KB).
 *
 * Everything is generated from a seeded PRNG, body by body (10 million
 * events do not fit in memory as text).
 */

/** mulberry32: small, fast and good enough for test data. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function taskIds(count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () =>
    Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join(''),
  );
}

const METRICS = ['loss', 'accuracy', 'f1', 'grad_norm', 'learning_rate'];
const VARIANTS = ['train', 'validation', 'test', 'total'];
const SERIES = METRICS.length * VARIANTS.length;
const START_MS = Date.UTC(2026, 10, 1);

export interface StorageLoad {
  /** Number of events the load sends. */
  events: number;
  /** Number of add_batch bodies. */
  bodies: number;
  /** The n-th body (n from 0, in order; each body is generated once). */
  body(n: number): Buffer;
}

/**
 * A metric's value at an iteration, as training code produces it: loss and
 * gradient norm come from tensors (float32 widened to double), accuracy and
 * F1 are ratios of counts over 10,000 samples computed in double (full
 * mantissa), the learning rate halves every 1,000 iterations.
 */
function scalarValue(metric: number, curve: number, iter: number, next: () => number): number {
  const noise = (next() + next() + next() - 1.5) * 0.02;
  switch (METRICS[metric]) {
    case 'loss':
    case 'grad_norm':
      return Math.fround(curve + 0.05 + noise);
    case 'learning_rate':
      return 0.001 * 0.5 ** Math.floor(iter / 1_000);
    default:
      return Math.round(Math.min(1, Math.max(0, 1 - curve + noise)) * 10_000) / 10_000;
  }
}

/** `total` scalar events over `tasks` tasks (rounded down to whole iterations of 20 series). */
export function scalarLoad(total: number, tasks: number): StorageLoad {
  const itersPerBody = 25;
  const ids = taskIds(tasks, 1);
  const next = random(2);
  const iterations = Math.floor(total / (tasks * SERIES));
  const clock = ids.map((_, t) => START_MS + t * 7_919);
  const bodiesPerTask = Math.ceil(iterations / itersPerBody);
  return {
    events: iterations * tasks * SERIES,
    bodies: bodiesPerTask * tasks,
    body(n) {
      const t = n % tasks;
      const first = Math.floor(n / tasks) * itersPerBody;
      const lines: string[] = [];
      for (let iter = first; iter < Math.min(iterations, first + itersPerBody); iter++) {
        clock[t]! += Math.round(250 * (0.75 + next() / 2));
        for (let s = 0; s < SERIES; s++) {
          const value = scalarValue(s % METRICS.length, (0.5 + s / SERIES) * Math.exp(-iter / 1_500), iter, next);
          lines.push(
            `{"timestamp": ${clock[t]! + s}, "type": "training_stats_scalar", "task": "${ids[t]}", "iter": ${iter}, "metric": "${METRICS[s % METRICS.length]}", "variant": "${VARIANTS[Math.floor(s / METRICS.length)]}", "value": ${value}}`,
          );
        }
      }
      return Buffer.from(lines.join('\n'));
    },
  };
}

/** `total` log lines over `tasks` tasks, 100 per body. */
export function logLoad(total: number, tasks: number): StorageLoad {
  const linesPerBody = 100;
  const ids = taskIds(tasks, 3);
  const next = random(4);
  const clock = ids.map((_, t) => START_MS + t * 7_919);
  const counter = ids.map(() => 0);
  const bodies = Math.ceil(total / linesPerBody);
  const line = (t: number): string => {
    const n = counter[t]!++;
    const epoch = Math.floor(n / 400);
    const r = next();
    if (r < 0.7) {
      const seen = (n % 400) * 128;
      return `Train Epoch: ${epoch} [${seen}/51200 (${Math.floor((seen / 51200) * 100)}%)]\tLoss: ${(2.3 * Math.exp(-n / 3000) + next() * 0.1).toFixed(6)}\tLR: ${(0.001 * 0.95 ** epoch).toFixed(6)}`;
    }
    if (r < 0.95) {
      const done = n % 400;
      const filled = Math.floor((done / 400) * 20);
      return ` ${Math.floor((done / 400) * 100)}%|${'█'.repeat(filled)}${' '.repeat(20 - filled)}| ${done}/400 [00:${String(Math.floor(done / 7) % 60).padStart(2, '0')}<00:${String(Math.floor((400 - done) / 7) % 60).padStart(2, '0')}, ${(6 + next() * 2).toFixed(2)}it/s]`;
    }
    return `/usr/local/lib/python3.10/site-packages/torch/utils/data/dataloader.py:${500 + Math.floor(next() * 100)}: UserWarning: This DataLoader will create ${Math.ceil(next() * 16)} worker processes in total. Our suggested max number of worker in current system is 8, which is smaller than what this DataLoader is going to create.`;
  };
  return {
    events: bodies * linesPerBody,
    bodies,
    body(n) {
      const t = n % tasks;
      const lines: string[] = [];
      for (let i = 0; i < linesPerBody; i++) {
        clock[t]! += Math.round(next() * 40);
        lines.push(
          JSON.stringify({
            timestamp: clock[t],
            type: 'log',
            task: ids[t],
            level: 'info',
            worker: `trainer-${String(t % 16).padStart(2, '0')}`,
            msg: line(t),
          }),
        );
      }
      return Buffer.from(lines.join('\n'));
    },
  };
}

function linePlot(next: () => number, iter: number): object {
  const x = Array.from({ length: 100 }, (_, i) => i);
  return {
    data: [
      {
        type: 'scatter',
        mode: 'lines',
        name: 'precision',
        x,
        y: x.map((i) => Number((1 - Math.exp(-i / 20) * (0.9 + next() * 0.1)).toFixed(6))),
      },
      { type: 'scatter', mode: 'lines', name: 'recall', x, y: x.map(() => Number(next().toFixed(6))) },
    ],
    layout: {
      title: `precision-recall iteration ${iter}`,
      xaxis: { title: 'threshold' },
      yaxis: { title: 'score' },
      showlegend: true,
    },
  };
}

function histogram(next: () => number, iter: number): object {
  return {
    data: [
      {
        type: 'bar',
        name: 'weights',
        x: Array.from({ length: 50 }, (_, i) => Number((-1 + i * 0.04).toFixed(2))),
        y: Array.from({ length: 50 }, (_, i) =>
          Math.round(1000 * Math.exp(-((i - 25) ** 2) / 60) * (0.8 + next() * 0.4)),
        ),
      },
    ],
    layout: {
      title: `weights iteration ${iter}`,
      xaxis: { title: 'value' },
      yaxis: { title: 'count' },
      barmode: 'overlay',
    },
  };
}

function confusionMatrix(next: () => number, iter: number): object {
  const labels = ['airplane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck'];
  return {
    data: [
      {
        type: 'heatmap',
        x: labels,
        y: labels,
        z: labels.map((_, r) =>
          labels.map((_, c) => (r === c ? 800 + Math.floor(next() * 150) : Math.floor(next() * 30))),
        ),
        colorscale: 'Viridis',
      },
    ],
    layout: { title: `confusion iteration ${iter}`, xaxis: { title: 'predicted' }, yaxis: { title: 'actual' } },
  };
}

/** `total` plots over `tasks` tasks: per iteration one of each kind, 30 per body. */
export function plotLoad(total: number, tasks: number): StorageLoad {
  const plotsPerBody = 30;
  const ids = taskIds(tasks, 5);
  const next = random(6);
  const clock = ids.map((_, t) => START_MS + t * 7_919);
  const counter = ids.map(() => 0);
  const kinds = [
    { metric: 'PR curve', variant: 'validation', build: linePlot },
    { metric: 'histograms', variant: 'layer4.weight', build: histogram },
    { metric: 'confusion', variant: 'validation', build: confusionMatrix },
  ];
  const bodies = Math.ceil(total / plotsPerBody);
  return {
    events: bodies * plotsPerBody,
    bodies,
    body(n) {
      const t = n % tasks;
      const lines: string[] = [];
      for (let i = 0; i < plotsPerBody; i++) {
        const k = counter[t]!++;
        const kind = kinds[k % kinds.length]!;
        const iter = Math.floor(k / kinds.length) * 100;
        clock[t]! += Math.round(next() * 1000);
        lines.push(
          JSON.stringify({
            timestamp: clock[t],
            type: 'plot',
            task: ids[t],
            iter,
            metric: kind.metric,
            variant: kind.variant,
            plot_str: JSON.stringify(kind.build(next, iter)),
          }),
        );
      }
      return Buffer.from(lines.join('\n'));
    },
  };
}

/** `total` debug images over `tasks` tasks, 20 per body: 4 variants, file names recycled every 100 iterations as the SDK does. */
export function imageLoad(total: number, tasks: number): StorageLoad {
  const imagesPerBody = 20;
  const ids = taskIds(tasks, 7);
  const next = random(8);
  const clock = ids.map((_, t) => START_MS + t * 7_919);
  const counter = ids.map(() => 0);
  const bodies = Math.ceil(total / imagesPerBody);
  return {
    events: bodies * imagesPerBody,
    bodies,
    body(n) {
      const t = n % tasks;
      const lines: string[] = [];
      for (let i = 0; i < imagesPerBody; i++) {
        const k = counter[t]!++;
        const variant = `batch_${k % 4}`;
        const iter = Math.floor(k / 4) * 50;
        clock[t]! += Math.round(next() * 500);
        const file = `samples_${variant}_${String(Math.floor(k / 4) % 100).padStart(8, '0')}.jpeg`;
        lines.push(
          JSON.stringify({
            timestamp: clock[t],
            type: 'training_debug_image',
            task: ids[t],
            iter,
            metric: 'samples',
            variant,
            url: `https://files.example.com/vision/resnet50.${ids[t]}/metrics/samples/${variant}/${file}`,
          }),
        );
      }
      return Buffer.from(lines.join('\n'));
    },
  };
}

/**
 * A training run's mix, by events: 80% scalars, 16% log lines, 3% debug
 * images, 1% plots, their bodies interleaved evenly (each kind keeps the
 * body size of its own load).
 */
export function mixedLoad(total: number, tasks: number): StorageLoad {
  const parts = [
    scalarLoad(total * 0.8, tasks),
    logLoad(total * 0.16, tasks),
    imageLoad(total * 0.03, tasks),
    plotLoad(total * 0.01, tasks),
  ];
  // Body k of a part with b bodies sits at (k + 0.5) / b of the run.
  const order = parts
    .flatMap((part, kind) => Array.from({ length: part.bodies }, (_, k) => ({ kind, at: (k + 0.5) / part.bodies })))
    .sort((a, b) => a.at - b.at);
  const taken = parts.map(() => 0);
  return {
    events: parts.reduce((sum, part) => sum + part.events, 0),
    bodies: order.length,
    body(n) {
      const { kind } = order[n]!;
      return parts[kind]!.body(taken[kind]!++);
    },
  };
}
