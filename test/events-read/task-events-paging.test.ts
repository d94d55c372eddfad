// events.get_task_events (events.md §5): every event type, iteration order in both directions with the
// no-iteration group last, pages never splitting an iteration, exact totals, signed cursors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalar } from '../harness/event-builders.js';
import { type ServiceFixture, startServiceFixture, unique, untilCount } from '../harness/service-fixture.js';

let r: ServiceFixture;
const task = unique('te-');
const many = unique('many-');
const iterLogs = unique('iterlogs-');
const hostile = unique('hostile-');
const T0 = 1_718_000_000_000;

// Names, workers and values that InfluxDB's CSV answer quotes, escapes or writes without an exponent
// (scalars are read from CSV bytes, query/events/store/scalar-csv-rows.ts).
const NAMES = [
  'a,b',
  'say "hi"',
  ' leading space',
  'line\nbreak',
  'cr\r\nlf',
  'tab\t',
  '~tilde',
  'back\\slash',
  'é ✓ 😀',
  '\u2028',
  'name,tags,time',
];
const WORKERS = ['', 'w,"1"', '\nw', ' w', '<unknown>', 'ü'];
const VALUES = [1e21, 9.99e20, 1e-7, 1e-6, 5e-324, Number.MAX_VALUE, 123456789012345680000, 0.1, -2.5e-9, 42, -1];
const hostileScalars = NAMES.flatMap((metric, i) =>
  NAMES.map((variant, j) => ({
    type: 'training_stats_scalar',
    task: hostile,
    metric,
    variant,
    worker: WORKERS[(i + j) % WORKERS.length],
    value: VALUES[(i * NAMES.length + j) % VALUES.length],
    iter: i === 0 ? 9_007_199_254_740_991 : j,
    timestamp: T0 + i * 1000 + j,
  })),
);

interface Expected {
  id: string;
  iter?: number;
  ts: number;
}
const expectedEvents: Expected[] = [];
function ev(kind: string, id: string, iter: number | undefined, ts: number, extra: object = {}) {
  expectedEvents.push({ id, iter, ts });
  const common = { task, timestamp: T0 + ts, ...(iter === undefined ? {} : { iter }) };
  switch (kind) {
    case 'scalar':
      return { type: 'training_stats_scalar', metric: 'loss', variant: id, value: ts, ...common, ...extra };
    case 'vector':
      return { type: 'training_stats_vector', metric: 'w', variant: id, values: [ts], ...common };
    case 'image':
      return {
        type: 'training_debug_image',
        metric: 'img',
        variant: 'v',
        key: id,
        url: `http://files/${id}`,
        ...common,
      };
    case 'plot':
      return { type: 'plot', metric: 'plots', variant: id, plot_str: `{"id": "${id}"}`, ...common };
    default:
      return { type: 'log', msg: id, level: 'info', ...common };
  }
}
const events = [
  ev('scalar', 's0a', 0, 2),
  ev('scalar', 's0b', 0, 1),
  ev('plot', 'p0', 0, 3),
  ev('scalar', 's1a', 1, 4),
  ev('vector', 'v1', 1, 5),
  ev('scalar', 's2a', 2, 9),
  ev('scalar', 's2b', 2, 6),
  ev('scalar', 's2c', 2, 7),
  ev('image', 'i2x', 2, 8),
  ev('image', 'i2y', 2, 10),
  // Logs are read from Redis and merged with InfluxDB's no-iteration events by timestamp: pnone lies among them.
  ev('plot', 'pnone', undefined, 14),
  ev('scalar', 'snone', undefined, 11),
  ev('log', 'log10', undefined, 15),
  ev('log', 'log5', undefined, 13),
  ev('log', 'log20', undefined, 12),
];
const idOf = (e: any): string => (e.type === 'log' ? e.msg : e.type === 'training_debug_image' ? e.key : e.variant);

function expectedOrder(order: 'asc' | 'desc'): string[] {
  const dir = order === 'asc' ? 1 : -1;
  return [...expectedEvents]
    .sort((a, b) => {
      if (a.iter === undefined || b.iter === undefined)
        return (a.iter === undefined ? 1 : 0) - (b.iter === undefined ? 1 : 0) || dir * (a.ts - b.ts);
      return dir * (a.iter - b.iter) || dir * (a.ts - b.ts);
    })
    .map((e) => e.id);
}

beforeAll(async () => {
  r = await startServiceFixture();
  await r.add(events);
  await r.add(Array.from({ length: 10_500 }, (_, i) => scalar(many, 'm', 'v', i, i)));
  await r.add([
    { type: 'log', task: iterLogs, msg: 'at-1', iter: 1, timestamp: T0 + 1 },
    { type: 'log', task: iterLogs, msg: 'plain', timestamp: T0 },
    scalar(iterLogs, 'm', 'v', 0, 0, { timestamp: T0 + 5 }),
    scalar(iterLogs, 'm', 'v', 2, 2, { timestamp: T0 + 5 }),
  ]);
  await r.add([scalar(task, 'model-side', 'x', 0, 1, { model_event: true })]);
  await r.add(hostileScalars);
  await untilCount(r, task, events.length);
  await untilCount(r, many, 10_500, {}, 60_000);
  await untilCount(r, iterLogs, 4);
  await untilCount(r, hostile, hostileScalars.length);
  await untilCount(r, task, 1, { model_events: true });
}, 120_000);
afterAll(async () => r?.stop());

async function readAll(body: object, batch: number): Promise<string[][]> {
  const pages: string[][] = [];
  let scroll: string | undefined;
  for (let guard = 0; guard < 20; guard++) {
    const d = await r.data('events.get_task_events', {
      task,
      ...body,
      batch_size: batch,
      ...(scroll ? { scroll_id: scroll } : {}),
    });
    pages.push(d.events.map(idOf));
    if (d.returned === 0) return pages;
    scroll = d.scroll_id;
  }
  throw new Error('did not end');
}

describe('events.get_task_events order and paging', () => {
  it('orders every type by iteration, then timestamp, events without iteration last (asc)', async () => {
    const d = await r.data('events.get_task_events', { task });
    expect(d.total).toBe(events.length);
    expect(d.returned).toBe(events.length);
    expect(d.events.map(idOf)).toEqual(expectedOrder('asc'));
  });

  it('keeps the no-iteration group last when descending', async () => {
    const d = await r.data('events.get_task_events', { task, order: 'desc' });
    expect(d.events.map(idOf)).toEqual(expectedOrder('desc'));
    expect(d.events.map(idOf).slice(-5)).toEqual(['log10', 'pnone', 'log5', 'log20', 'snone']);
  });

  it('never splits an iteration or the no-iteration group across pages', async () => {
    expect(await readAll({}, 2)).toEqual([
      ['s0b', 's0a', 'p0'],
      ['s1a', 'v1'],
      ['s2b', 's2c', 'i2x', 's2a', 'i2y'],
      ['snone', 'log20', 'log5', 'pnone', 'log10'],
      [],
    ]);
    expect((await readAll({ order: 'desc' }, 1)).map((p) => p.length)).toEqual([5, 2, 3, 5, 0]);
    expect((await readAll({}, 4)).flat()).toEqual(expectedOrder('asc'));
  });

  it('returns events in their stored form', async () => {
    const d = await r.data('events.get_task_events', { task, event_type: 'log' });
    expect(d.events[0]).toEqual({
      type: 'log',
      task,
      timestamp: T0 + 12,
      metric: '',
      variant: '',
      level: 'info',
      msg: 'log20',
      worker: '<unknown>',
      model_event: false,
      '@timestamp': expect.stringMatching(/Z$/),
    });
    const plots = await r.data('events.get_task_events', { task, event_type: 'plot' });
    expect(plots.events[0]).toMatchObject({ type: 'plot', iter: 0, plot_str: '{"id": "p0"}', plot_len: 12 });
    // Scalars are written as JSON from their CSV rows (scalar-csv-rows.ts): the same stored form, member order included.
    const stored = (
      await r.data('events.get_task_events', {
        task,
        event_type: 'training_stats_scalar',
        metrics: [{ metric: 'loss', variants: ['s1a', 'snone'] }],
      })
    ).events;
    expect(stored).toEqual([
      {
        type: 'training_stats_scalar',
        task,
        timestamp: T0 + 4,
        metric: 'loss',
        variant: 's1a',
        worker: '<unknown>',
        model_event: false,
        '@timestamp': expect.stringMatching(/Z$/),
        iter: 1,
        value: 4,
      },
      {
        type: 'training_stats_scalar',
        task,
        timestamp: T0 + 11,
        metric: 'loss',
        variant: 'snone',
        worker: '<unknown>',
        model_event: false,
        '@timestamp': stored[1]['@timestamp'],
        value: 11,
      },
    ]);
    expect(stored.map((e: object) => Object.keys(e))).toEqual([
      ['type', 'task', 'timestamp', 'metric', 'variant', 'worker', 'model_event', '@timestamp', 'iter', 'value'],
      ['type', 'task', 'timestamp', 'metric', 'variant', 'worker', 'model_event', '@timestamp', 'value'],
    ]);
  });

  it('returns scalars with any names, workers and values as they were sent, page after page', async () => {
    const read: any[] = [];
    let scroll: string | undefined;
    for (let guard = 0; guard < 20 && read.length < hostileScalars.length; guard++) {
      const d = await r.data('events.get_task_events', {
        task: hostile,
        batch_size: 37,
        ...(scroll ? { scroll_id: scroll } : {}),
      });
      read.push(...d.events);
      scroll = d.scroll_id;
    }
    const key = (e: any) => `${e.iter} ${e.timestamp}`;
    const expected = hostileScalars
      .map((e) => ({ ...e, model_event: false, '@timestamp': expect.stringMatching(/Z$/) }))
      .sort((a, b) => a.iter - b.iter || a.timestamp - b.timestamp);
    expect(read.map(key)).toEqual(expected.map(key));
    expect(read).toEqual(expected);
  });

  it('filters by event type and metrics, and keeps the selection in the cursor', async () => {
    const images = await r.data('events.get_task_events', { task, event_type: 'training_debug_image', batch_size: 1 });
    expect(images.events.map(idOf)).toEqual(['i2x', 'i2y']);
    expect(images.total).toBe(2);
    const filtered = await r.data('events.get_task_events', {
      task,
      metrics: [{ metric: 'loss', variants: ['s2a', 'snone'] }, { metric: 'w' }],
      batch_size: 1,
    });
    expect(filtered.events.map(idOf)).toEqual(['v1']);
    expect(filtered.total).toBe(3);
    const next = await r.data('events.get_task_events', {
      task,
      scroll_id: filtered.scroll_id,
      event_type: 'log',
      order: 'desc',
      batch_size: 1,
    });
    expect(next.events.map(idOf)).toEqual(['s2a']);
    expect(next.total).toBe(3);
    const last = await r.data('events.get_task_events', { task, scroll_id: next.scroll_id });
    expect(last.events.map(idOf)).toEqual(['snone']);
    const done = await r.data('events.get_task_events', { task, scroll_id: last.scroll_id });
    expect(done).toMatchObject({ returned: 0, events: [] });
    const still = await r.data('events.get_task_events', { task, scroll_id: done.scroll_id });
    expect(still.scroll_id).toBe(done.scroll_id);
  });

  it('answers total null without count_total', async () => {
    const d = await r.data('events.get_task_events', { task, count_total: false, batch_size: 1 });
    expect(d.total).toBeNull();
    const next = await r.data('events.get_task_events', { task, scroll_id: d.scroll_id, count_total: true });
    expect(next.total).toBeNull();
  });

  it('keeps model events apart', async () => {
    const d = await r.data('events.get_task_events', { task, model_events: true });
    expect(d.events.map(idOf)).toEqual(['x']);
    expect(d.events[0].model_event).toBe(true);
  });

  it('places log events that carry an iteration among the iterations', async () => {
    const d = await r.data('events.get_task_events', { task: iterLogs });
    expect(d.events.map((e: any) => e.msg ?? e.iter)).toEqual([0, 'at-1', 2, 'plain']);
    const byOne = await r.data('events.get_task_events', { task: iterLogs, batch_size: 1, order: 'desc' });
    const second = await r.data('events.get_task_events', {
      task: iterLogs,
      scroll_id: byOne.scroll_id,
      batch_size: 1,
    });
    expect(second.events.map((e: any) => e.msg)).toEqual(['at-1']);
  });
});

describe('limits and errors', () => {
  it('treats batch_size above 10000 as 10000 and counts exactly beyond 10000', async () => {
    const d = await r.data('events.get_task_events', { task: many, batch_size: 20_000 });
    expect(d.returned).toBe(10_000);
    expect(d.total).toBe(10_500);
    const rest = await r.data('events.get_task_events', { task: many, scroll_id: d.scroll_id, batch_size: 10_000 });
    expect(rest.returned).toBe(500);
    expect(rest.events[0].iter).toBe(10_000);
    const defaultSize = await r.data('events.get_task_events', { task: many, order: 'desc' });
    expect(defaultSize.returned).toBe(500);
    expect(defaultSize.events[0].iter).toBe(10_499);
  });

  it('validates batch_size, order and event_type', async () => {
    const zero = await r.call('events.get_task_events', { task, batch_size: 0 });
    expect(zero.body.meta.result_msg).toBe("Validation error ('0' is lower than minimum ('1').)");
    const order = await r.call('events.get_task_events', { task, order: 'up' });
    expect(order.body.meta.result_msg).toBe(`Validation error (value is wrong, expected type "logorderenum" 'up')`);
    const type = await r.call('events.get_task_events', { task, event_type: 'x' });
    expect(type.body.meta.result_subcode).toBe(12);
  });

  it('refuses cursors of another entity, company or operation', async () => {
    const d = await r.data('events.get_task_events', { task, batch_size: 1 });
    const otherTask = await r.call('events.get_task_events', { task: many, scroll_id: d.scroll_id });
    expect(otherTask.body.meta).toMatchObject({
      result_subcode: 1104,
      result_msg: `Invalid scroll id: scroll_id=${d.scroll_id}`,
    });
    const bTask = unique('b-');
    await r.add([scalar(bTask, 'm', 'v', 0, 0)], r.tokenB);
    const otherCompany = await r.call('events.get_task_events', { task: bTask, scroll_id: d.scroll_id }, r.tokenB);
    expect(otherCompany.body.meta.result_subcode).toBe(1104);
    const unknown = await r.call('events.get_task_events', { task: bTask });
    expect(unknown.body.meta.result_msg).toBe(`Invalid task id: ids=(${bTask})`);
  });
});
