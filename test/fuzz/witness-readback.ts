/**
 * Reads every witness task back through the API, the way clients do:
 * scalars with events.get_task_events, logs with events.get_task_log, plots
 * with events.get_task_plots, images with events.debug_images, each paged to
 * the end, and counts how often each acknowledged event appears. Each must
 * appear exactly once (events.md §1.5: logs have no identity, so a second
 * copy is a duplicate delivery; the others are unique by construction).
 */
import { apiCall, bearer } from './api-call.js';
import type { CompanyKey, World } from './fuzz-world.js';
import type { WitnessEvent, WitnessLedger } from './witness-ledger.js';

export interface ReadbackResult {
  /** Acknowledged events not found exactly once. */
  unreadable: Array<{ event: WitnessEvent; seen: number }>;
  /** Reads that did not answer 200 (they leave events unfound). */
  readErrors: string[];
}

const MAX_PAGES = 200;

type Counts = Map<string, number>;
const bump = (counts: Counts, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

class Reader {
  readonly errors: string[] = [];
  constructor(
    private readonly port: number,
    private readonly token: string,
    private readonly deadlineMs: number,
  ) {}

  async call(op: string, body: Record<string, unknown>): Promise<any | undefined> {
    const answer = await apiCall(this.port, op, body, bearer(this.token), this.deadlineMs);
    if (answer.status !== 200) {
      this.errors.push(`${op} ${JSON.stringify(body).slice(0, 160)} -> ${answer.status} ${answer.text.slice(0, 200)}`);
      return undefined;
    }
    return answer.json?.data;
  }
}

async function scalars(reader: Reader, task: string, counts: Counts): Promise<void> {
  let scroll: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const data = await reader.call('events.get_task_events', {
      task,
      event_type: 'training_stats_scalar',
      batch_size: 10_000,
      ...(scroll ? { scroll_id: scroll } : {}),
    });
    if (data === undefined) return;
    for (const e of data.events ?? []) bump(counts, `scalar|${e.metric}|${e.variant}|${e.iter}|${e.value}`);
    if (!data.events?.length || !data.scroll_id) return;
    scroll = data.scroll_id;
  }
}

async function logs(reader: Reader, task: string, counts: Counts): Promise<void> {
  let from: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const data = await reader.call('events.get_task_log', {
      task,
      batch_size: 10_000,
      navigate_earlier: true,
      ...(from !== undefined ? { from_timestamp: from } : {}),
    });
    if (data === undefined || !data.events?.length) return;
    for (const e of data.events) bump(counts, `log|${e.msg}`);
    // A short page was the last one (a full page may continue within its oldest millisecond's neighbours);
    // and from_timestamp 0 means "absent" (events.md §6.1): a log at timestamp 0 ends the walk too.
    if (data.events.length < 10_000) return;
    const oldest = Math.min(...data.events.map((e: { timestamp: number }) => e.timestamp));
    if (oldest <= 0 || (from !== undefined && oldest >= from)) return;
    from = oldest;
  }
}

async function plots(reader: Reader, task: string, metric: string, counts: Counts): Promise<void> {
  let scroll: string | undefined;
  let seen = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const data = await reader.call('events.get_task_plots', {
      task,
      iters: 1,
      metrics: [{ metric }],
      ...(scroll ? { scroll_id: scroll } : {}),
    });
    if (data === undefined) return;
    for (const e of data.plots ?? []) bump(counts, `plot|${e.metric}|${e.variant}|${e.iter}`);
    seen += data.plots?.length ?? 0;
    if (!data.plots?.length || !data.scroll_id || seen >= Number(data.total ?? 0)) return;
    scroll = data.scroll_id;
  }
}

async function images(reader: Reader, task: string, metric: string, counts: Counts): Promise<void> {
  let scroll: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const data = await reader.call('events.debug_images', {
      metrics: [{ task, metric }],
      iters: 1_000,
      ...(scroll ? { scroll_id: scroll } : {}),
    });
    if (data === undefined) return;
    const iterations = (data.metrics ?? []).flatMap((m: { iterations?: unknown[] }) => m.iterations ?? []);
    for (const it of iterations)
      for (const e of (it as { events?: Array<Record<string, unknown>> }).events ?? [])
        bump(counts, `image|${e.metric}|${e.variant}|${e.iter}`);
    if (iterations.length === 0 || !data.scroll_id) return;
    scroll = data.scroll_id;
  }
}

function keyOf(ledger: WitnessLedger, e: WitnessEvent): string {
  const json = ledger.json(e);
  switch (e.type) {
    case 'scalar':
      return `scalar|${json.metric}|${json.variant}|${json.iter}|${json.value}`;
    case 'log':
      return `log|${json.msg}`;
    case 'plot':
      return `plot|${json.metric}|${json.variant}|${json.iter}`;
    case 'image':
      return `image|${json.metric}|${json.variant}|${json.iter}`;
  }
}

export async function readBack(
  port: number,
  world: World,
  ledger: WitnessLedger,
  deadlineMs: number,
): Promise<ReadbackResult> {
  const acked = ledger.acked();
  const counts: Counts = new Map();
  const errors: string[] = [];
  for (const company of ['a', 'b'] as CompanyKey[]) {
    const reader = new Reader(port, world.companies[company].token, deadlineMs);
    const marker = world.companies[company].marker;
    const tasks = new Set(acked.filter((e) => e.company === company).map((e) => e.task));
    for (const task of tasks) {
      const types = new Set(acked.filter((e) => e.task === task).map((e) => e.type));
      if (types.has('scalar')) await scalars(reader, task, counts);
      if (types.has('log')) await logs(reader, task, counts);
      if (types.has('plot')) await plots(reader, task, `${marker}p`, counts);
      if (types.has('image')) await images(reader, task, `${marker}i`, counts);
    }
    errors.push(...reader.errors);
  }
  const unreadable = acked
    .map((event) => ({ event, seen: counts.get(keyOf(ledger, event)) ?? 0 }))
    .filter((r) => r.seen !== 1);
  return { unreadable, readErrors: errors };
}
