// Plot bodies in plot_body, one series per 16 iterations of a variant (docs/storage.md): every plot read
// returns each plot's own body, at bucket boundaries and without an iteration; plots stored before that
// layout (the body in plot's `p`) read as they did; deleting an entity removes its bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/eventually.js';
import { type ServiceFixture, startServiceFixture, unique } from '../harness/service-fixture.js';
import { plot, scalar } from '../harness/event-builders.js';
import { encodeTagValue, escapeTagValue, iterTimeText, quoteFieldString } from '../../shared/events/storage-layout.js';

let f: ServiceFixture;
beforeAll(async () => {
  f = await startServiceFixture({ worker: 'test-worker' });
});
afterAll(async () => f?.stop());

const influx = () => f.h.service.services.stores.influx;

/** The plot_str of the builder's plot at (metric, variant, iter). */
const bodyOf = (metric: string, variant: string, iter: number | undefined) =>
  plot('t', metric, variant, iter).plot_str as string;

/** "<metric>/<variant>@<iter>=<plot_str>" of plot events, sorted. */
const bodies = (events: readonly any[]) =>
  events.map((e) => `${e.metric}/${e.variant}@${e.iter ?? '-'}=${e.plot_str}`).sort();
const expected = (list: ReadonlyArray<[string, string, number | undefined, string?]>) =>
  list.map(([m, v, i, body]) => `${m}/${v}@${i ?? '-'}=${body ?? bodyOf(m, v, i)}`).sort();

async function plotsVisible(task: string, count: number, modelEvents = false): Promise<void> {
  await eventually(
    () => f.data('events.get_task_plots', { task, iters: 100, model_events: modelEvents }),
    (d) => d.total === count,
  );
}

async function rows(statement: string): Promise<Array<Record<string, unknown>>> {
  const series = (await influx().query(statement))[0]?.series ?? [];
  return series.flatMap((s) => s.values.map((row) => Object.fromEntries(s.columns.map((c, i) => [c, row[i]]))));
}

/** Every read that returns plot bodies, each asked for everything of the task. */
async function everyRead(task: string, metrics: string[]) {
  const taskPlots = (await f.data('events.get_task_plots', { task, iters: 100 })).plots;
  const taskEvents = (await f.data('events.get_task_events', { task, event_type: 'plot', batch_size: 1000 })).events;
  const window = (await f.data('events.plots', { metrics: [{ task }], iters: 100 })).metrics[0].iterations.flatMap(
    (it: { events: unknown[] }) => it.events,
  );
  const multi = await f.data('events.get_multi_task_plots', { tasks: [task], iters: 100 });
  const multiEvents = Object.values(multi.plots).flatMap((variants: any) =>
    Object.values(variants).flatMap((byTask: any) =>
      Object.values(byTask).flatMap((byIter: any) => Object.values(byIter).flatMap((g: any) => g.plots)),
    ),
  );
  const samples = [];
  for (const metric of metrics) {
    const sample = await f.data('events.get_plot_sample', { task, metric });
    samples.push(...sample.events);
    for (;;) {
      const next = await f.data('events.next_plot_sample', { task, scroll_id: sample.scroll_id, next_iteration: true });
      if (next.events.length === 0) break;
      samples.push(...next.events);
    }
  }
  return { taskPlots, taskEvents, window, multiEvents, samples };
}

describe('bodies in their buckets', () => {
  const task = unique('pb-');
  const written: Array<[string, string, number | undefined]> = [
    ['m', 'v', 0],
    ['m', 'v', 15],
    ['m', 'v', 16],
    ['m', 'v', 31],
    ['m', 'v', 32],
    ['m', 'v', undefined],
    ['m', 'w', 16],
    ['n', 'v', 15],
  ];
  beforeAll(async () => {
    await f.add(written.map(([m, v, i]) => plot(task, m, v, i)));
    await plotsVisible(task, written.length);
  });

  it('stores each body once, in plot_body in the series of its 16 iterations; the plot point holds no body', async () => {
    const stored = await rows(`SELECT * FROM "plot_body" WHERE "e" = '${task}'`);
    expect(stored.map((r) => `${r.m}/${r.v}@${r.time}:${r.b}`).sort(), 'bucket of each body').toEqual(
      [
        'm/v@0:0',
        'm/v@15:0',
        'm/v@16:1',
        'm/v@31:1',
        'm/v@32:2',
        `m/v@${Number(iterTimeText(undefined))}:none`,
        'm/w@16:1',
        'n/v@15:0',
      ].sort(),
    );
    const points = await rows(`SELECT * FROM "plot" WHERE "e" = '${task}'`);
    expect(points).toHaveLength(written.length);
    expect(points.every((p) => (p.p ?? null) === null)).toBe(true);
  });

  it('every plot read returns each plot its own body', async () => {
    const all = expected(written);
    const reads = await everyRead(task, ['m', 'n']);
    expect(bodies(reads.taskPlots), 'get_task_plots').toEqual(all);
    expect(bodies(reads.taskEvents), 'get_task_events').toEqual(all);
    // Windows and the multi-task read show iterations only; samples one iteration of a metric at a time.
    const withIter = expected(written.filter(([, , i]) => i !== undefined));
    expect(bodies(reads.window), 'events.plots').toEqual(withIter);
    expect(bodies(reads.multiEvents), 'get_multi_task_plots').toEqual(withIter);
    expect(bodies(reads.samples), 'plot samples').toEqual(withIter);
  });

  it('iters 1 reads the latest of each variant, one bucket each', async () => {
    const d = await f.data('events.get_task_plots', { task });
    expect(bodies(d.plots)).toEqual(
      expected([
        ['m', 'v', 32],
        ['m', 'w', 16],
        ['n', 'v', 15],
      ]),
    );
  });
});

describe('plots stored before plot_body: the body in the plot point', () => {
  const task = unique('pold-');
  const legacy: Array<[string, string, number | undefined]> = [
    ['old', 'v', 3],
    ['old', 'v', 20],
    ['old', 'v', undefined],
  ];
  beforeAll(async () => {
    // Registers the task through ingest; the plots are then written in the form of earlier versions.
    await f.add([scalar(task, 'loss', 'x', 0, 1)]);
    const tag = (value: string) => escapeTagValue(encodeTagValue(value));
    await influx().write(
      legacy
        .map(([metric, variant, iter], k) => {
          const text = bodyOf(metric, variant, iter);
          return `plot,c=${tag(f.company('a'))},e=${tag(task)},m=${metric},n=t,v=${variant} p=${quoteFieldString(`p${text}`)},len=${text.length}i,src="",ts=${1_718_000_000_000 + k}i,at=1718000000000i,w="old-worker",q=${k + 1}i ${iterTimeText(iter)}`;
        })
        .join('\n'),
    );
    await plotsVisible(task, legacy.length);
  });

  it('every plot read returns the body stored in the plot point', async () => {
    const reads = await everyRead(task, ['old']);
    expect(bodies(reads.taskPlots), 'get_task_plots').toEqual(expected(legacy));
    expect(bodies(reads.taskEvents), 'get_task_events').toEqual(expected(legacy));
    const withIter = expected(legacy.filter(([, , i]) => i !== undefined));
    expect(bodies(reads.window), 'events.plots').toEqual(withIter);
    expect(bodies(reads.multiEvents), 'get_multi_task_plots').toEqual(withIter);
    expect(bodies(reads.samples), 'plot samples').toEqual(withIter);
  });

  it('a plot re-reported since reads as re-reported, not as the body its point kept', async () => {
    const fresh = '{"data": [], "layout": {"title": "again"}}';
    await f.add([plot(task, 'old', 'v', 20, { plot_str: fresh })]);
    const d = await f.poll('events.get_task_plots', { task, iters: 100 }, (data) =>
      data.plots.some((p: any) => p.iter === 20 && p.plot_len === fresh.length),
    );
    expect(bodies(d.plots)).toEqual(
      expected([
        ['old', 'v', 3],
        ['old', 'v', 20, fresh],
        ['old', 'v', undefined],
      ]),
    );
    const events = (await f.data('events.get_task_events', { task, event_type: 'plot' })).events;
    expect(events.find((e: any) => e.iter === 20).plot_str).toBe(fresh);
  });
});

describe('deleting an entity removes its plot bodies', () => {
  it('delete_for_task drops the task bodies of every bucket; the model of the same id keeps its own', async () => {
    const id = unique('pdel-');
    await f.add([plot(id, 'm', 'v', 0), plot(id, 'm', 'v', 17), plot(id, 'm', 'v', undefined)]);
    await f.add([plot(id, 'm', 'v', 0, { model_event: true, plot_str: '{"model": true}' })]);
    await plotsVisible(id, 3);
    await plotsVisible(id, 1, true);
    const series = async (namespace: string) =>
      (await rows(`SHOW SERIES FROM "plot_body" WHERE "e" = '${id}' AND "n" = '${namespace}'`)).length;
    expect(await series('t')).toBe(3);

    expect(await f.data('events.delete_for_task', { task: id })).toEqual({ deleted: 3 });
    expect(await series('t')).toBe(0);
    expect(await rows(`SELECT * FROM "plot_body" WHERE "e" = '${id}' AND "n" = 't'`)).toEqual([]);
    expect(await series('m')).toBe(1);
    const model = await f.data('events.get_task_plots', { task: id, model_events: true });
    expect(model.plots.map((p: any) => p.plot_str)).toEqual(['{"model": true}']);

    // Reported again after the deletion: the new plot alone, with its body.
    await f.add([plot(id, 'm', 'v', 17, { plot_str: '{"after": true}' })]);
    await plotsVisible(id, 1);
    const again = await f.data('events.get_task_plots', { task: id, iters: 100 });
    expect(again.plots.map((p: any) => p.plot_str)).toEqual(['{"after": true}']);
  });
});
