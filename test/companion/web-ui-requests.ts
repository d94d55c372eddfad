/**
 * Every `events.*` and `reports.*` request the stock ClearML web UI sends
 * (allegroai/clearml-web v2.0, release commit 946d6ec9), written from the
 * UI's own effects and components: the body the effect builds, with the
 * values its callers put in, and the fields of the answer the code that
 * consumes it reads. Paths are under clearml-web's `src/app/`; `@common` is
 * `webapp-common/`. Variants count separately when the UI sends different
 * fields (a model instead of a task, another axis, another direction).
 *
 * Shapes marked `companion` name an experiment that exists in the ClearML
 * server and has no events yet (draft, queued): standalone, such an id does
 * not exist here (events.md §1.10), so they run in companion mode only.
 *
 * The UI sends every call to `<api>/v999.0/<operation>` (app.constants.ts
 * `ENVIRONMENT.API_VERSION`) with the `clearml_token_basic` cookie and
 * `X-Allegro-Client: Webapp-<version>` (@common/core/interceptors/
 * webapp-interceptor.ts); the report widgets add `X-Allegro-Tenant` and the
 * embed URL's other parameters as a query string (@common/clearml-
 * applications/report-widgets/src/app/app.effects.ts, app.component.ts
 * `getOtherSearchParams`).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';

const uniqueSuffix = () => randomBytes(6).toString('hex');

export type Mode = 'standalone' | 'companion';

/** The experiments, models and projects the requests name, and how to make what they need. */
export interface UiWorld {
  readonly mode: Mode;
  /** A training task with scalars, single values, plots (two iterations), debug images and a console log. */
  readonly task: string;
  /** The name a multi-task answer gives an experiment: the ClearML server's (companion), the id (standalone, §1.10). */
  nameOf(id: string): string;
  /** A second task with scalars and a plot (compare views). */
  readonly task2: string;
  /** A model with scalars, a single value and a plot. */
  readonly model: string;
  /** Companion mode: a queued task of the ClearML server that wrote no event. */
  readonly draft: string;
  /** A project of the ClearML server (standalone: an id unknown here), and a second one. */
  readonly project: { readonly id: string; readonly name: string };
  readonly project2: { readonly id: string; readonly name: string };
  readonly userId: string;
  readonly company: string;
  /** Timestamps of the task's log lines, oldest first. */
  readonly logTimes: readonly number[];
  /** Calls an operation as the web UI does; `data` of the envelope. */
  ui(operation: string, body: unknown, options?: UiCallOptions): Promise<UiAnswer>;
  /** A fresh report created as the UI creates one (in `project`), for the requests that act on a report. */
  newReport(): Promise<{ id: string; project_id: string; name: string }>;
}

export interface UiCallOptions {
  /** The query string (without `?`). */
  query?: string;
  method?: 'GET' | 'POST';
  /** A plain link the browser follows: the cookie only, no client header. */
  link?: boolean;
  /** The report widgets' `X-Allegro-Tenant: <company>`. */
  tenant?: boolean;
}

export interface UiAnswer {
  status: number;
  meta: any;
  data: any;
  text: string;
}

export interface UiRequest {
  /** What the user does. */
  readonly name: string;
  /** The clearml-web file that builds the request. */
  readonly source: string;
  readonly operation: string;
  readonly modes?: readonly Mode[];
  readonly options?: (w: UiWorld) => UiCallOptions;
  body(w: UiWorld): unknown | Promise<unknown>;
  /** Asserts what the UI reads from the answer (the consumer is named in each). */
  check(data: any, w: UiWorld, answer: UiAnswer): void | Promise<void>;
}

// --- sources ------------------------------------------------------------------------------------------------
const OUTPUT = 'webapp-common/experiments/effects/common-experiment-output.effects.ts';
const DOWNLOAD = 'features/experiments/effects/experiment-output.effects.ts';
const DEBUG = 'webapp-common/debug-images/debug-images-effects.ts';
const SAMPLE = 'webapp-common/shared/debug-sample/debug-sample.effects.ts';
const GRAPH = 'webapp-common/shared/single-graph/single-graph.effects.ts';
const VIEW = 'webapp-common/experiments/effects/common-experiments-view.effects.ts';
const COMPARE = 'webapp-common/experiments-compare/effects/experiments-compare-charts.effects.ts';
const MODEL = 'webapp-common/models/effects/models-info.effects.ts';
const REPORTS = 'webapp-common/reports/reports.effects.ts';
const DASHBOARD = 'webapp-common/dashboard/common-dashboard.effects.ts';
const SEARCH = 'webapp-common/dashboard-search/dashboard-search.effects.ts';
const WIDGETS = 'webapp-common/clearml-applications/report-widgets/src/app/app.effects.ts';

// --- what the consumers read --------------------------------------------------------------------------------

/** reports.effects.ts getReports / common-dashboard.effects.ts / dashboard-search.effects.ts: the card fields. */
const REPORT_LIST_FIELDS = [
  'name',
  'comment',
  'company',
  'tags',
  'report',
  'project.name',
  'user.name',
  'status',
  'last_update',
  'system_tags',
];
const LOG_BATCH_SIZE = 1000; // @common/experiments/shared/common-experiments.const.ts
const REPORTS_PAGE_SIZE = 12; // @common/reports/reports.consts.ts PAGE_SIZE
const SEARCH_PAGE_SIZE = 12; // @common/dashboard-search/dashboard-search.consts.ts
const EXCLUDED = '__$not'; // @common/shared/utils/tableParamEncode.ts excludedKey

/** experiment-output.reducer.ts setExperimentLog: events (reversed, sorted by timestamp), each shown by `msg`. */
function logAnswer(data: any, expected: readonly string[]) {
  expect(typeof data.total).toBe('number');
  expect(Array.isArray(data.events)).toBe(true);
  for (const e of data.events) expect(e).toMatchObject({ msg: expect.any(String), timestamp: expect.any(Number) });
  expect(data.events.map((e: any) => e.msg).sort()).toEqual([...expected].sort());
}

/** Single-experiment scalars (experiments/reducers/index.ts createHistogramSelector): chart[metric][variant].x / .y. */
function histogram(data: any, metric: string, variant: string, points: number) {
  const graph = data[metric]?.[variant];
  expect(graph, JSON.stringify(data).slice(0, 300)).toBeDefined();
  expect(graph.x).toHaveLength(points);
  expect(graph.y).toHaveLength(points);
}

/** Compare scalars (experiments-compare/reducers/index.ts selectCompareTasksScalarCharts): metrics[m][v][task].x / .y / .name. */
function compareHistogram(data: any, metric: string, variant: string, tasks: Record<string, string>) {
  for (const [task, name] of Object.entries(tasks)) {
    const graph = data.metrics?.[metric]?.[variant]?.[task];
    expect(graph, JSON.stringify(data).slice(0, 300)).toBeDefined();
    expect(graph.x.length).toBeGreaterThan(0);
    expect(graph.y.length).toBe(graph.x.length);
    expect(graph.name).toBe(name);
  }
}

/** experiments-compare-charts.effects.ts getMultiPlotCharts: returned, total, scroll_id; plots merged. */
function multiPlots(data: any) {
  expect(data).toMatchObject({
    returned: expect.any(Number),
    total: expect.any(Number),
    scroll_id: expect.any(String),
  });
  expect(typeof data.plots).toBe('object');
}

/** debug-images.component.ts: metrics.find(m => m.task === id).iterations[].iter / .events[] (url, metric, variant, timestamp). */
function debugImages(data: any, task: string, expectImages: boolean) {
  expect(data.scroll_id).toEqual(expect.any(String));
  const entry = data.metrics.find((m: any) => m.task === task);
  expect(entry, JSON.stringify(data).slice(0, 300)).toBeDefined();
  expect(Array.isArray(entry.iterations)).toBe(true);
  if (expectImages) expect(entry.iterations.length).toBeGreaterThan(0);
  for (const it of entry.iterations) {
    expect(typeof it.iter).toBe('number');
    for (const e of it.events)
      expect(e).toMatchObject({
        url: expect.any(String),
        metric: expect.any(String),
        variant: expect.any(String),
        timestamp: expect.any(Number),
      });
  }
}

/** debug-sample.effects.ts / single-graph.effects.ts: min_iteration, max_iteration, scroll_id. */
function sampleNavigation(data: any) {
  expect(data).toMatchObject({
    min_iteration: expect.any(Number),
    max_iteration: expect.any(Number),
    scroll_id: expect.any(String),
  });
}

/** single-graph.effects.ts fetchExperimentScalarFullDetails$: returned, total, scroll_id, variants[name].y / [key]. */
function rawScalars(data: any, key: string) {
  // One page holds them all (batch_size 200000): the next page is asked only while returned < total.
  expect(data).toMatchObject({ returned: data.total, total: expect.any(Number), scroll_id: expect.any(String) });
  const train = data.variants?.train;
  expect(train, JSON.stringify(data).slice(0, 300)).toBeDefined();
  expect(train.y.length).toBeGreaterThan(0);
  expect(train[key]).toHaveLength(train.y.length);
}

/** report-widgets app.effects.ts setTaskData: tasks[0].project.id (a missing project throws), tasks[].id. */
function widgetTasks(data: any, ids: readonly string[]) {
  expect(data.tasks.map((t: any) => t.id).sort()).toEqual([...ids].sort());
  expect(data.tasks[0].project).toEqual(expect.any(Object));
}

/** reports.effects.ts getReports: tasks (cards), scroll_id (load more). */
function reportList(data: any, includes: readonly string[] = [], excludes: readonly string[] = []) {
  expect(Array.isArray(data.tasks)).toBe(true);
  expect(data.scroll_id).toEqual(expect.any(String));
  const ids = data.tasks.map((t: any) => t.id);
  for (const id of includes) expect(ids).toContain(id);
  for (const id of excludes) expect(ids).not.toContain(id);
  for (const t of data.tasks) {
    expect(t).toMatchObject({
      name: expect.any(String),
      status: expect.any(String),
      company: expect.any(Object),
      project: { id: expect.any(String), name: expect.any(String) },
    });
    expect(t.user).toMatchObject({ id: expect.any(String) });
  }
}

/** What reports.effects.ts getReports sends for the reports page (of a project: `{project: <route's projectId>}`). */
export const reportsPageBody = (extra: object = {}) => ({
  only_fields: REPORT_LIST_FIELDS,
  size: REPORTS_PAGE_SIZE,
  scroll_id: null,
  system_tags: [EXCLUDED, 'archived'],
  order_by: ['-last_update'],
  ...extra,
});

const firstLogTime = (w: UiWorld) => w.logTimes[0]!;
const lastLogTime = (w: UiWorld) => w.logTimes.at(-1)!;

/** A scroll id of the UI's previous call, as the store keeps it. */
async function scrollOf(w: UiWorld, operation: string, body: object): Promise<string> {
  const first = await w.ui(operation, body);
  expect(first.status, JSON.stringify(first.meta)).toBe(200);
  return first.data.scroll_id as string;
}

const imageMetric = (w: UiWorld, extra: object = {}) => ({
  metrics: [{ task: w.task, metric: 'samples' }],
  iters: 3,
  ...extra,
});

export const UI_REQUESTS: readonly UiRequest[] = [
  // --- experiment console --------------------------------------------------------------------------------
  {
    name: 'console: latest lines',
    source: OUTPUT,
    operation: 'events.get_task_log',
    body: (w) => ({ task: w.task, batch_size: LOG_BATCH_SIZE, navigate_earlier: true, from_timestamp: null }),
    check: (d) => logAnswer(d, ['line 0', 'line 1', 'line 2', 'line 3', 'line 4']),
  },
  {
    name: 'console: earlier lines (scrolling up)',
    source: OUTPUT,
    operation: 'events.get_task_log',
    body: (w) => ({ task: w.task, batch_size: LOG_BATCH_SIZE, navigate_earlier: true, from_timestamp: lastLogTime(w) }),
    check: (d) => logAnswer(d, ['line 0', 'line 1', 'line 2', 'line 3']),
  },
  {
    name: 'console: later lines (scrolling down)',
    source: OUTPUT,
    operation: 'events.get_task_log',
    body: (w) => ({
      task: w.task,
      batch_size: LOG_BATCH_SIZE,
      navigate_earlier: false,
      from_timestamp: firstLogTime(w),
    }),
    check: (d) => logAnswer(d, ['line 1', 'line 2', 'line 3', 'line 4']),
  },
  {
    name: 'console: refresh from the start (direction next, no timestamp)',
    source: OUTPUT,
    operation: 'events.get_task_log',
    body: (w) => ({ task: w.task, batch_size: LOG_BATCH_SIZE, navigate_earlier: false, from_timestamp: null }),
    check: (d) => logAnswer(d, ['line 0', 'line 1', 'line 2', 'line 3', 'line 4']),
  },
  {
    name: 'console of an experiment without events',
    source: OUTPUT,
    operation: 'events.get_task_log',
    modes: ['companion'],
    body: (w) => ({ task: w.draft, batch_size: LOG_BATCH_SIZE, navigate_earlier: true, from_timestamp: null }),
    check: (d) => logAnswer(d, []),
  },
  {
    name: 'console: download (a link, GET with the cookie)',
    source: DOWNLOAD,
    operation: 'events.download_task_log',
    // experiment-output.effects.ts: a.href = `${API_BASE_URL}/events.download_task_log?line_type=text&task=${id}`
    options: (w) => ({ method: 'GET', link: true, query: `line_type=text&task=${w.task}` }),
    body: () => undefined,
    check: (_d, _w, answer) => {
      for (let i = 0; i < 5; i++) expect(answer.text).toContain(`line ${i}`);
    },
  },
  // --- experiment plots, scalars, single values ---------------------------------------------------------
  {
    name: 'plots tab',
    source: OUTPUT,
    operation: 'events.get_task_plots',
    body: (w) => ({ task: w.task, iters: 1 }),
    // fetchExperimentPlots$: plots (concatenated), total, scroll_id; it asks the next page while plots < total,
    // so a total above what the pages return would never end.
    check: (d) => {
      expect(d).toMatchObject({ total: d.plots.length, scroll_id: expect.any(String) });
      expect(d.plots.map((p: any) => p.metric).sort()).toEqual(['confusion', 'roc']);
      for (const p of d.plots)
        expect(p).toMatchObject({ plot_str: expect.any(String), iter: 2, variant: expect.any(String) });
    },
  },
  {
    name: 'plots tab: next page',
    source: OUTPUT,
    operation: 'events.get_task_plots',
    body: async (w) => ({
      task: w.task,
      iters: 1,
      scroll_id: await scrollOf(w, 'events.get_task_plots', { task: w.task, iters: 1 }),
    }),
    check: (d) => expect(d.plots).toEqual([]),
  },
  {
    name: 'plots tab of an experiment without events',
    source: OUTPUT,
    operation: 'events.get_task_plots',
    modes: ['companion'],
    body: (w) => ({ task: w.draft, iters: 1 }),
    check: (d) => expect(d).toMatchObject({ plots: [], total: 0 }),
  },
  {
    name: 'scalars tab: single values',
    source: OUTPUT,
    operation: 'events.get_task_single_value_metrics',
    body: (w) => ({ tasks: [w.task] }),
    // setExperimentScalarSingleValue(res.tasks[0]): its `values`
    check: (d) =>
      expect(d.tasks[0].values).toEqual([expect.objectContaining({ metric: 'Summary', variant: 'acc', value: 0.9 })]),
  },
  {
    name: 'scalars tab: single values of an experiment without events',
    source: OUTPUT,
    operation: 'events.get_task_single_value_metrics',
    modes: ['companion'],
    body: (w) => ({ tasks: [w.draft] }),
    check: (d) => expect(d.tasks).toEqual([]),
  },
  {
    name: 'model scalars tab: single values',
    source: OUTPUT,
    operation: 'events.get_task_single_value_metrics',
    body: (w) => ({ tasks: [w.model], model_events: true }),
    check: (d) =>
      expect(d.tasks[0].values).toEqual([expect.objectContaining({ metric: 'Summary', variant: 'acc', value: 0.7 })]),
  },
  {
    name: 'scalars tab: charts by iteration',
    source: OUTPUT,
    operation: 'events.scalar_metrics_iter_histogram',
    body: (w) => ({ task: w.task, key: 'iter' }),
    check: (d) => histogram(d, 'loss', 'train', 3),
  },
  {
    name: 'scalars tab: charts by time (wall time and relative time both ask timestamp)',
    source: OUTPUT,
    operation: 'events.scalar_metrics_iter_histogram',
    body: (w) => ({ task: w.task, key: 'timestamp' }),
    check: (d) => histogram(d, 'loss', 'train', 3),
  },
  {
    name: 'scalars tab of an experiment without events',
    source: OUTPUT,
    operation: 'events.scalar_metrics_iter_histogram',
    modes: ['companion'],
    body: (w) => ({ task: w.draft, key: 'iter' }),
    check: (d) => expect(d).toEqual({}),
  },
  {
    name: 'model scalars tab',
    source: OUTPUT,
    operation: 'events.scalar_metrics_iter_histogram',
    body: (w) => ({ task: w.model, key: 'iter', model_events: true }),
    check: (d) => histogram(d, 'loss', 'train', 2),
  },
  {
    name: 'model plots tab',
    source: MODEL,
    operation: 'events.get_task_plots',
    body: (w) => ({ task: w.model, model_events: true }),
    // fetchExperimentPlots$: plots, total (a second page only while plots < total)
    check: (d) => {
      expect(d.total).toBe(1);
      expect(d.plots).toEqual([expect.objectContaining({ metric: 'roc', variant: 'v', plot_str: expect.any(String) })]);
    },
  },
  // --- debug samples ----------------------------------------------------------------------------------------
  {
    name: 'debug samples: metric list',
    source: DEBUG,
    operation: 'events.get_task_metrics',
    body: (w) => ({ tasks: [w.task], event_type: 'training_debug_image' }),
    // setMetrics → debug-images.component.ts optionalMetrics[].task / .metrics[0]
    check: (d, w) => expect(d.metrics).toEqual([{ task: w.task, metrics: ['samples'] }]),
  },
  {
    name: 'debug samples: metric list of an experiment without events',
    source: DEBUG,
    operation: 'events.get_task_metrics',
    modes: ['companion'],
    body: (w) => ({ tasks: [w.draft], event_type: 'training_debug_image' }),
    check: (d, w) => expect(d.metrics).toEqual([{ task: w.draft, metrics: [] }]),
  },
  {
    name: 'debug samples: a metric selected',
    source: DEBUG,
    operation: 'events.debug_images',
    body: (w) => imageMetric(w, { scroll_id: null, navigate_earlier: true, refresh: true }),
    check: (d, w) => debugImages(d, w.task, true),
  },
  {
    name: 'debug samples: all metrics (metric null)',
    source: DEBUG,
    operation: 'events.debug_images',
    body: (w) => ({
      metrics: [{ task: w.task, metric: null }],
      iters: 3,
      scroll_id: null,
      navigate_earlier: true,
      refresh: true,
    }),
    check: (d, w) => debugImages(d, w.task, true),
  },
  ...(
    [
      ['older iterations', { navigate_earlier: true, refresh: false }, false],
      ['newer iterations', { navigate_earlier: false, refresh: false }, false],
      ['auto refresh', { navigate_earlier: true, refresh: true }, true],
    ] as const
  ).map(([what, fields, images]): UiRequest => ({
    name: `debug samples: ${what}`,
    source: DEBUG,
    operation: 'events.debug_images',
    // the scroll_id of the task's previous answer (debugImages[task].scroll_id)
    body: async (w) =>
      imageMetric(w, {
        scroll_id: await scrollOf(
          w,
          'events.debug_images',
          imageMetric(w, { scroll_id: null, navigate_earlier: true, refresh: true }),
        ),
        ...fields,
      }),
    check: (d, w) => debugImages(d, w.task, images),
  })),
  {
    name: 'debug samples of an experiment without events',
    source: DEBUG,
    operation: 'events.debug_images',
    modes: ['companion'],
    body: (w) => ({
      metrics: [{ task: w.draft, metric: null }],
      iters: 3,
      scroll_id: null,
      navigate_earlier: true,
      refresh: true,
    }),
    check: (d, w) => debugImages(d, w.draft, false),
  },
  {
    name: 'image viewer: open an image (this metric)',
    source: SAMPLE,
    operation: 'events.get_debug_image_sample',
    body: (w) => ({
      task: w.task,
      iteration: 2,
      metric: 'samples',
      variant: 'img',
      scroll_id: null,
      navigate_current_metric: true,
    }),
    // setCurrentDebugImage({event: res.event})
    check: (d) => {
      sampleNavigation(d);
      expect(d.event).toMatchObject({ iter: 2, metric: 'samples', variant: 'img', url: expect.any(String) });
    },
  },
  {
    name: 'image viewer: open an image (all metrics)',
    source: SAMPLE,
    operation: 'events.get_debug_image_sample',
    body: (w) => ({
      task: w.task,
      iteration: 2,
      metric: 'samples',
      variant: 'mask',
      scroll_id: null,
      navigate_current_metric: false,
    }),
    check: (d) => {
      sampleNavigation(d);
      expect(d.event).toMatchObject({ iter: 2, variant: 'mask' });
    },
  },
  ...(
    [
      ['next image', { navigate_earlier: false }],
      ['previous image', { navigate_earlier: true }],
      ['next iteration', { navigate_earlier: false, next_iteration: true }],
      ['previous iteration', { navigate_earlier: true, next_iteration: true }],
    ] as const
  ).map(([what, fields]): UiRequest => ({
    name: `image viewer: ${what}`,
    source: SAMPLE,
    operation: 'events.next_debug_image_sample',
    body: async (w) => ({
      task: w.task,
      scroll_id: await scrollOf(w, 'events.get_debug_image_sample', {
        task: w.task,
        iteration: 2,
        metric: 'samples',
        variant: 'img',
        scroll_id: null,
        navigate_current_metric: true,
      }),
      ...fields,
    }),
    // getNextDebugImagesForIter$: no event = the end; else event, min/max iteration, scroll_id
    check: (d) => {
      expect(d.event).toMatchObject({ url: expect.any(String) });
      sampleNavigation(d);
    },
  })),
  // --- full-screen plot and scalar ----------------------------------------------------------------------
  {
    name: 'plot viewer: open a plot',
    source: GRAPH,
    operation: 'events.get_plot_sample',
    body: (w) => ({ task: w.task, iteration: 2, metric: 'roc', scroll_id: null, navigate_current_metric: false }),
    // setCurrentPlot({event: res.events})
    check: (d) => {
      sampleNavigation(d);
      expect(d.events).toEqual([expect.objectContaining({ metric: 'roc', iter: 2, plot_str: expect.any(String) })]);
    },
  },
  {
    name: 'plot viewer: open a model plot',
    source: GRAPH,
    operation: 'events.get_plot_sample',
    body: (w) => ({
      task: w.model,
      iteration: 1,
      metric: 'roc',
      scroll_id: null,
      navigate_current_metric: false,
      model_events: true,
    }),
    check: (d) => {
      sampleNavigation(d);
      expect(d.events).toEqual([expect.objectContaining({ metric: 'roc', iter: 1 })]);
    },
  },
  ...(
    [
      ['next plot', { navigate_earlier: false }, 0],
      ['previous plot', { navigate_earlier: true }, 1],
      ['next iteration', { navigate_earlier: false, next_iteration: true }, 0],
      ['previous iteration', { navigate_earlier: true, next_iteration: true }, 1],
    ] as const
  ).map(([what, fields, found]): UiRequest => ({
    name: `plot viewer: ${what}`,
    source: GRAPH,
    operation: 'events.next_plot_sample',
    body: async (w) => ({
      task: w.task,
      scroll_id: await scrollOf(w, 'events.get_plot_sample', {
        task: w.task,
        iteration: 2,
        metric: 'roc',
        scroll_id: null,
        navigate_current_metric: false,
      }),
      ...fields,
    }),
    // getNextPlotsForIter$: events.length 0 = the end; else events, min/max iteration, scroll_id
    check: (d) => {
      expect(Array.isArray(d.events)).toBe(true);
      expect(d.events.length > 0).toBe(found === 1);
      if (found === 1) sampleNavigation(d);
    },
  })),
  ...(['iter', 'timestamp', 'iso_time'] as const).map((key): UiRequest => ({
    name: `scalar viewer: full detail by ${key}`,
    source: GRAPH,
    operation: 'events.scalar_metrics_iter_raw',
    body: (w) => ({ task: w.task, metric: { metric: 'loss' }, key, count_total: true, batch_size: 200000 }),
    check: (d) => rawScalars(d, key),
  })),
  {
    name: 'scalar viewer: full detail of a model',
    source: GRAPH,
    operation: 'events.scalar_metrics_iter_raw',
    body: (w) => ({
      task: w.model,
      metric: { metric: 'loss' },
      key: 'iter',
      count_total: true,
      model_events: true,
      batch_size: 200000,
    }),
    check: (d) => rawScalars(d, 'iter'),
  },
  {
    name: 'scalar viewer: next page',
    source: GRAPH,
    operation: 'events.scalar_metrics_iter_raw',
    body: async (w) => ({
      task: w.task,
      metric: { metric: 'loss' },
      scroll_id: await scrollOf(w, 'events.scalar_metrics_iter_raw', {
        task: w.task,
        metric: { metric: 'loss' },
        key: 'iter',
        count_total: true,
        batch_size: 200000,
      }),
      key: 'iter',
      count_total: true,
      batch_size: 200000,
    }),
    // expand() stops once returned-so-far reaches total
    check: (d) => expect(d).toMatchObject({ returned: 0, total: expect.any(Number) }),
  },
  // --- compare ----------------------------------------------------------------------------------------------
  ...(
    [
      ['scalars', 'training_stats_scalar', ['Summary', 'loss']],
      ['plots', 'plot', ['confusion', 'roc']],
    ] as const
  ).map(([what, eventType, metrics]): UiRequest => ({
    name: `compare ${what}: metric picker`,
    source: VIEW,
    operation: 'events.get_multi_task_metrics',
    body: (w) => ({ tasks: [w.task, w.task2], event_type: eventType, model_events: false }),
    // getCustomMetricsPerType: metrics[].metric, metrics[].variants
    check: (d) => {
      expect(d.metrics.map((m: any) => m.metric).sort()).toEqual([...metrics]);
      for (const m of d.metrics) expect(m.variants.length).toBeGreaterThan(0);
    },
  })),
  {
    name: 'compare models: scalar metric picker',
    source: VIEW,
    operation: 'events.get_multi_task_metrics',
    body: (w) => ({ tasks: [w.model], event_type: 'training_stats_scalar', model_events: true }),
    check: (d) => expect(d.metrics.map((m: any) => m.metric).sort()).toEqual(['Summary', 'loss']),
  },
  {
    name: 'compare scalars: metric picker with an experiment without events',
    source: VIEW,
    operation: 'events.get_multi_task_metrics',
    modes: ['companion'],
    body: (w) => ({ tasks: [w.task, w.draft], event_type: 'training_stats_scalar', model_events: false }),
    check: (d) => expect(d.metrics.map((m: any) => m.metric).sort()).toEqual(['Summary', 'loss']),
  },
  {
    name: 'compare scalars: single values',
    source: COMPARE,
    operation: 'events.get_task_single_value_metrics',
    body: (w) => ({
      tasks: [w.task, w.task2],
      metrics: [{ metric: 'Summary', variants: ['acc'] }],
      model_events: false,
    }),
    // setExperimentMultiScalarSingleValue(res.tasks): task, task_name, values
    check: (d, w) => {
      expect(d.tasks.map((t: any) => t.task).sort()).toEqual([w.task, w.task2].sort());
      expect(d.tasks.find((t: any) => t.task === w.task)).toMatchObject({
        task_name: w.nameOf(w.task),
        values: [expect.objectContaining({ value: 0.9 })],
      });
    },
  },
  {
    name: 'compare models: single values',
    source: COMPARE,
    operation: 'events.get_task_single_value_metrics',
    body: (w) => ({ tasks: [w.model], metrics: [{ metric: 'Summary', variants: ['acc'] }], model_events: true }),
    check: (d, w) =>
      expect(d.tasks).toEqual([
        expect.objectContaining({ task: w.model, values: [expect.objectContaining({ value: 0.7 })] }),
      ]),
  },
  ...(['iter', 'timestamp'] as const).map((key): UiRequest => ({
    name: `compare scalars: charts by ${key}`,
    source: COMPARE,
    operation: 'events.multi_task_scalar_metrics_iter_histogram',
    body: (w) => ({
      tasks: [w.task, w.task2],
      metrics: [{ metric: 'loss', variants: ['train'] }],
      model_events: false,
      key,
    }),
    check: (d, w) => compareHistogram(d, 'loss', 'train', { [w.task]: w.nameOf(w.task), [w.task2]: w.nameOf(w.task2) }),
  })),
  {
    name: 'compare models: scalar charts',
    source: COMPARE,
    operation: 'events.multi_task_scalar_metrics_iter_histogram',
    body: (w) => ({
      tasks: [w.model],
      metrics: [{ metric: 'loss', variants: ['train'] }],
      model_events: true,
      key: 'iter',
    }),
    check: (d, w) => expect(d.metrics.loss.train[w.model].y).toEqual([1, 0.5]),
  },
  {
    name: 'compare scalars: charts with an experiment without events',
    source: COMPARE,
    operation: 'events.multi_task_scalar_metrics_iter_histogram',
    modes: ['companion'],
    body: (w) => ({
      tasks: [w.task, w.draft],
      metrics: [{ metric: 'loss', variants: ['train'] }],
      model_events: false,
      key: 'iter',
    }),
    check: (d, w) => compareHistogram(d, 'loss', 'train', { [w.task]: w.nameOf(w.task) }),
  },
  {
    name: 'compare plots',
    source: COMPARE,
    operation: 'events.get_multi_task_plots',
    body: (w) => ({
      tasks: [w.task, w.task2],
      model_events: false,
      metrics: [{ metric: 'roc', variants: ['v'] }],
      last_iters_per_task_metric: true,
      iters: 1,
    }),
    check: (d, w) => {
      multiPlots(d);
      expect(Object.keys(d.plots.roc.v).sort()).toEqual([w.task, w.task2].sort());
    },
  },
  {
    name: 'compare plots: next page (the loop ends on returned 0)',
    source: COMPARE,
    operation: 'events.get_multi_task_plots',
    body: async (w) => {
      const body = {
        tasks: [w.task, w.task2],
        model_events: false,
        metrics: [{ metric: 'roc', variants: ['v'] }],
        last_iters_per_task_metric: true,
        iters: 1,
      };
      return { ...body, scroll_id: await scrollOf(w, 'events.get_multi_task_plots', body) };
    },
    check: (d) => expect(d).toMatchObject({ returned: 0, total: expect.any(Number) }),
  },
  {
    name: 'compare models: plots',
    source: COMPARE,
    operation: 'events.get_multi_task_plots',
    body: (w) => ({
      tasks: [w.model],
      model_events: true,
      metrics: [{ metric: 'roc', variants: ['v'] }],
      last_iters_per_task_metric: true,
      iters: 1,
    }),
    check: (d, w) => {
      multiPlots(d);
      expect(Object.keys(d.plots.roc.v)).toEqual([w.model]);
    },
  },
  {
    name: 'compare plots with an experiment without events',
    source: COMPARE,
    operation: 'events.get_multi_task_plots',
    modes: ['companion'],
    body: (w) => ({
      tasks: [w.task, w.draft],
      model_events: false,
      metrics: [{ metric: 'roc', variants: ['v'] }],
      last_iters_per_task_metric: true,
      iters: 1,
    }),
    check: (d, w) => {
      multiPlots(d);
      expect(Object.keys(d.plots.roc.v)).toEqual([w.task]);
    },
  },
  // --- reports: create, list, open, edit ------------------------------------------------------------------
  {
    name: 'new report in a project',
    source: REPORTS,
    operation: 'reports.create',
    body: (w) => ({
      name: `new ui report ${uniqueSuffix()}`,
      comment: 'about it',
      project: w.project.id,
      projectName: w.project.name,
    }),
    // createReport$: router.navigate(['reports', res.project_id, res.id])
    check: (d) => expect(d).toEqual({ id: expect.any(String), project_id: expect.any(String) }),
  },
  {
    name: 'new report under "Projects root"',
    source: REPORTS,
    operation: 'reports.create',
    body: () => ({
      name: `root ui report ${uniqueSuffix()}`,
      comment: '',
      project: null,
      projectName: 'Projects root',
    }),
    check: async (d, w) => {
      const got = await w.ui('reports.get_all_ex', { id: [d.id], only_fields: ['project.name'] });
      expect(got.data.tasks[0].project.name).toBe('.reports');
    },
  },
  {
    name: 'reports page (all reports)',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      await w.newReport();
      return reportsPageBody();
    },
    check: (d) => reportList(d),
  },
  {
    name: "reports page of a project (the route's project id)",
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      await w.newReport();
      return reportsPageBody({ project: w.project.id });
    },
    check: (d, w) => {
      reportList(d);
      expect(d.tasks.length).toBeGreaterThan(0);
      for (const t of d.tasks) expect(t.project.name).toBe(`${w.project.name}/.reports`);
    },
  },
  {
    name: 'reports page of "*" (project null: the root reports)',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: (w) => reportsPageBody({ project: null }),
    check: (d) => {
      reportList(d);
      for (const t of d.tasks) expect(t.project.name).toBe('.reports');
    },
  },
  {
    name: 'reports page: archived',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      const r = await w.newReport();
      await w.ui('reports.archive', { task: r.id });
      return reportsPageBody({ system_tags: ['__$and', 'archived'] });
    },
    check: (d) => {
      reportList(d);
      expect(d.tasks.length).toBeGreaterThan(0);
      for (const t of d.tasks) expect(t.system_tags).toContain('archived');
    },
  },
  {
    name: 'reports page: load more',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => ({
      ...reportsPageBody(),
      scroll_id: await scrollOf(w, 'reports.get_all_ex', reportsPageBody()),
    }),
    check: (d) => reportList(d),
  },
  {
    name: 'reports page: sorted by name',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: (w) => reportsPageBody({ order_by: ['name'] }),
    check: (d) => {
      reportList(d);
      const names = d.tasks.map((t: any) => t.name);
      expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
    },
  },
  {
    name: 'reports page: my work',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: (w) => reportsPageBody({ user: [w.userId] }),
    check: (d, w) => {
      reportList(d);
      for (const t of d.tasks) expect(t.user.id).toBe(w.userId);
    },
  },
  {
    name: 'reports page: tag filter',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      const r = await w.newReport();
      await w.ui('reports.update', { task: r.id, tags: ['ui-tag'] });
      return reportsPageBody({ filters: { tags: { any: { include: ['ui-tag'], exclude: [] } } } });
    },
    check: (d) => {
      reportList(d);
      expect(d.tasks.length).toBeGreaterThan(0);
      for (const t of d.tasks) expect(t.tags).toContain('ui-tag');
    },
  },
  {
    name: 'reports page: search',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      const r = await w.newReport();
      return reportsPageBody({
        _any_: { pattern: r.name, fields: ['id', 'name', 'tags', 'project', 'comment', 'report'] },
      });
    },
    check: (d) => {
      reportList(d);
      expect(d.tasks).toHaveLength(1);
    },
  },
  {
    name: 'reports page: examples hidden',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: (w) => reportsPageBody({ allow_public: false }),
    check: (d) => reportList(d),
  },
  {
    name: 'report page: open a report',
    source: REPORTS,
    operation: 'reports.get_all_ex',
    body: async (w) => ({
      id: [(await w.newReport()).id],
      only_fields: [
        'name',
        'status',
        'company.id',
        'user.id',
        'comment',
        'report',
        'tags',
        'system_tags',
        'report_assets',
        'project.name',
      ],
    }),
    // getReport: tasks[0] (none = 404 page); report.component.ts reads these fields
    check: (d, w) => {
      expect(d.tasks).toHaveLength(1);
      expect(d.tasks[0]).toMatchObject({
        name: expect.any(String),
        status: 'created',
        company: { id: w.company },
        user: { id: w.userId },
        comment: 'about it',
        tags: [],
        system_tags: expect.arrayContaining(['hidden', 'reports']),
        report_assets: [],
        project: { id: expect.any(String), name: `${w.project.name}/.reports` },
      });
    },
  },
  {
    name: 'reports page: tag list',
    source: REPORTS,
    operation: 'reports.get_tags',
    body: () => ({}),
    // getReportsTags: res.tags.includes(...)
    check: (d) => expect(Array.isArray(d.tags)).toBe(true),
  },
  ...(
    [
      ['rename', () => ({ name: `renamed ${uniqueSuffix()}` })],
      ['description', () => ({ comment: 'new description' })],
      ['edit the markdown', () => ({ report: '# Results\n\n<iframe src="/widgets/?type=scalar"></iframe>' })],
      ['tags', () => ({ tags: ['a', 'b'] })],
      ['upload an asset', () => ({ report_assets: ['https://files.example/reports/r/a.png'] })],
    ] as const
  ).map(([what, changes]): UiRequest => ({
    name: `report: ${what}`,
    source: REPORTS,
    operation: 'reports.update',
    body: async (w) => ({ task: (await w.newReport()).id, ...changes() }),
    // updateReport: setReportChanges({...res.fields, ...changes})
    check: (d) => {
      expect(d.updated).toBe(1);
      expect(typeof d.fields).toBe('object');
    },
  })),
  {
    name: 'report: move to another project',
    source: REPORTS,
    operation: 'reports.move',
    body: async (w) => ({ task: (await w.newReport()).id, project: w.project2.id, project_name: w.project2.name }),
    // moveReport: setReportChanges(project {id: res.project_id}), navigateToProjectAfterMove(res.project_id)
    check: async (d, w) => {
      expect(d).toEqual({ project_id: expect.any(String) });
      const listed = await w.ui('reports.get_all_ex', reportsPageBody({ project: w.project2.id }));
      expect(listed.data.tasks.length).toBeGreaterThan(0);
    },
  },
  {
    name: 'report: move to "Projects root"',
    source: REPORTS,
    operation: 'reports.move',
    // change-project-dialog.component.ts closeDialog: {id: null, name: undefined}
    body: async (w) => ({ task: (await w.newReport()).id, project: null }),
    check: (d) => expect(d).toEqual({ project_id: expect.any(String) }),
  },
  {
    name: 'report: move to a new project typed in',
    source: REPORTS,
    operation: 'reports.move',
    // closeDialog with a typed string: {id: '', name: <typed>}
    body: async (w) => ({ task: (await w.newReport()).id, project: '', project_name: `Typed ${uniqueSuffix()}` }),
    check: (d) => expect(d).toEqual({ project_id: expect.any(String) }),
  },
  {
    name: 'report: publish',
    source: REPORTS,
    operation: 'reports.publish',
    body: async (w) => ({ task: (await w.newReport()).id }),
    // publishReport: setReportChanges(res.fields)
    check: (d) => expect(d.fields).toMatchObject({ status: 'published' }),
  },
  {
    name: 'report: archive',
    source: REPORTS,
    operation: 'reports.archive',
    body: async (w) => ({ task: (await w.newReport()).id }),
    check: (d) => expect(d).toEqual({ archived: 1 }),
  },
  {
    name: 'report: restore',
    source: REPORTS,
    operation: 'reports.unarchive',
    body: async (w) => {
      const r = await w.newReport();
      await w.ui('reports.archive', { task: r.id });
      return { task: r.id };
    },
    check: (d) => expect(d).toEqual({ unarchived: 1 }),
  },
  {
    name: 'report: delete',
    source: REPORTS,
    operation: 'reports.delete',
    body: async (w) => ({ task: (await w.newReport()).id }),
    check: (d) => expect(d).toEqual({ deleted: 1 }),
  },
  {
    name: 'dashboard: recent reports',
    source: DASHBOARD,
    operation: 'reports.get_all_ex',
    body: () => ({
      only_fields: REPORT_LIST_FIELDS,
      size: 6,
      scroll_id: null,
      order_by: ['-last_update'],
      system_tags: [EXCLUDED, 'archived'],
    }),
    // setRecentReports({reports: res.tasks})
    check: (d) => {
      reportList(d);
      expect(d.tasks.length).toBeGreaterThan(0);
      expect(d.tasks.length).toBeLessThanOrEqual(6);
    },
  },
  {
    name: 'dashboard: recent reports, my work, examples hidden',
    source: DASHBOARD,
    operation: 'reports.get_all_ex',
    body: (w) => ({
      only_fields: REPORT_LIST_FIELDS,
      size: 6,
      scroll_id: null,
      allow_public: false,
      user: [w.userId],
      order_by: ['-last_update'],
      system_tags: [EXCLUDED, 'archived'],
    }),
    check: (d) => reportList(d),
  },
  {
    name: 'search: reports',
    source: SEARCH,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      const r = await w.newReport();
      return {
        _any_: { pattern: r.name, fields: ['id', 'name', 'tags', 'project', 'comment', 'report'] },
        scroll_id: null,
        size: SEARCH_PAGE_SIZE,
        system_tags: ['-archived'],
        only_fields: REPORT_LIST_FIELDS,
        order_by: ['-last_update'],
      };
    },
    // setReportsResults({reports: res.tasks, scrollId: res.scroll_id})
    check: (d) => {
      reportList(d);
      expect(d.tasks).toHaveLength(1);
    },
  },
  {
    name: 'search: reports, more results',
    source: SEARCH,
    operation: 'reports.get_all_ex',
    body: async (w) => {
      const body = {
        _any_: { pattern: 'report', fields: ['id', 'name', 'tags', 'project', 'comment', 'report'] },
        size: SEARCH_PAGE_SIZE,
        system_tags: ['-archived'],
        only_fields: REPORT_LIST_FIELDS,
        order_by: ['-last_update'],
      };
      return { ...body, scroll_id: await scrollOf(w, 'reports.get_all_ex', { ...body, scroll_id: null }) };
    },
    check: (d) => reportList(d),
  },
  // --- report widgets (iframes in a report) ---------------------------------------------------------------
  ...widgetRequests(),
];

/** The five widget types, for tasks and models, and with an experiment without events (companion). */
function widgetRequests(): UiRequest[] {
  const widget = (
    name: string,
    query: string,
    modes: readonly Mode[] | undefined,
    body: (w: UiWorld) => unknown,
    check: UiRequest['check'],
  ): UiRequest => ({
    name: `report widget: ${name}`,
    source: WIDGETS,
    operation: 'reports.get_task_data',
    modes,
    options: () => ({ query, tenant: true }),
    body,
    check,
  });
  const requests: UiRequest[] = [];
  for (const models of [false, true]) {
    const what = models ? 'model ' : '';
    const ids = (w: UiWorld) => (models ? [w.model] : [w.task, w.task2]);
    requests.push(
      widget(
        `${what}plot`,
        'series=roc',
        undefined,
        (w) => ({
          id: ids(w),
          model_events: models,
          plots: { iters: 1, metrics: [{ metric: 'roc', variants: ['v'] }] },
        }),
        (d, w) => {
          widgetTasks(d, ids(w));
          // setPlotData(res.data.plots): metric → variant → task → iteration → plot
          for (const id of ids(w)) expect(Object.keys(d.plots.roc.v[id])).toEqual([expect.any(String)]);
        },
      ),
      widget(
        `${what}scalar`,
        'xaxis=iter&series=loss',
        undefined,
        (w) => ({
          id: ids(w),
          model_events: models,
          scalar_metrics_iter_histogram: { metrics: [{ metric: 'loss', variants: ['train'] }], key: 'iter' },
        }),
        (d, w) => {
          widgetTasks(d, ids(w));
          for (const id of ids(w)) expect(d.scalar_metrics_iter_histogram.loss.train[id].y.length).toBeGreaterThan(0);
        },
      ),
      widget(
        `${what}single values`,
        '',
        undefined,
        (w) => ({ id: ids(w), model_events: models, single_value_metrics: {} }),
        (d, w) => {
          widgetTasks(d, ids(w));
          // setSingleValues(res.data.single_value_metrics); app.component.ts reads singleValueData[0].values
          expect(d.single_value_metrics[0].values.length).toBeGreaterThan(0);
        },
      ),
    );
  }
  requests.push(
    widget(
      'debug sample',
      '',
      undefined,
      (w) => ({ id: [w.task], debug_images: { iters: 1, metrics: [{ metric: 'samples', variants: ['img'] }] } }),
      (d, w) => {
        widgetTasks(d, [w.task]);
        // setSampleData(res.data.debug_images[0].iterations[0].events[0])
        expect(d.debug_images[0].iterations[0].events[0]).toMatchObject({
          url: expect.any(String),
          metric: 'samples',
          variant: 'img',
        });
      },
    ),
    widget(
      'parallel coordinates',
      '',
      undefined,
      (w) => ({
        id: [w.task, w.task2],
        only_fields: ['last_metrics', 'name', 'last_iteration', 'project', 'hyperparams.General.lr'],
      }),
      (d, w) => {
        widgetTasks(d, [w.task, w.task2]);
        // setParallelCoordinateExperiments(res.data.tasks): name, last_metrics[metric hash][variant hash].value
        const t = d.tasks.find((x: any) => x.id === w.task);
        expect(t.name).toBe(w.nameOf(w.task));
        expect(Object.values(t.last_metrics).length).toBeGreaterThan(0);
      },
    ),
    widget(
      'scalar with an experiment without events',
      'xaxis=iter',
      ['companion'],
      (w) => ({
        id: [w.task, w.draft],
        model_events: false,
        scalar_metrics_iter_histogram: { metrics: [{ metric: 'loss', variants: ['train'] }], key: 'iter' },
      }),
      (d, w) => {
        widgetTasks(d, [w.task, w.draft]);
        expect(Object.keys(d.scalar_metrics_iter_histogram.loss.train)).toEqual([w.task]);
      },
    ),
    widget(
      'plot of an experiment without events',
      '',
      ['companion'],
      (w) => ({
        id: [w.draft],
        model_events: false,
        plots: { iters: 1, metrics: [{ metric: 'roc', variants: ['v'] }] },
      }),
      (d, w) => {
        widgetTasks(d, [w.draft]);
        expect(d.plots).toEqual({});
      },
    ),
  );
  return requests;
}
