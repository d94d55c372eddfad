/**
 * Before the hostile requests: tokens for both companies, reports (and their
 * projects) to aim report operations at, data in the target tasks and models
 * so that reads and deletions have something to chew on, and real scroll
 * ids and navigation states of every kind, which hostile requests replay
 * under the other company, mutated, or with another task.
 */
import { apiCall, basic, bearer } from './api-call.js';
import type { CompanyKey, CompanyWorld, FuzzCredential, World } from './fuzz-world.js';
import { worldNames } from './fuzz-world.js';

export function newWorld(seed: number, credentials: Record<CompanyKey, FuzzCredential>, authSecret: string): World {
  const company = (key: CompanyKey): CompanyWorld => ({
    key,
    credential: credentials[key],
    token: '',
    reports: [],
    projects: [],
    scrolls: [],
    ...worldNames(seed, key),
  });
  return { seed, authSecret, companies: { a: company('a'), b: company('b') } };
}

function targetEvents(world: World, key: CompanyKey): string {
  const c = world.companies[key];
  const lines: object[] = [];
  for (const task of c.targets) {
    for (let iter = 0; iter < 5; iter++) {
      for (const variant of ['train', 'val']) {
        lines.push({ type: 'training_stats_scalar', task, iter, metric: 'loss', variant, value: iter / 3 });
        lines.push({ type: 'training_stats_vector', task, iter, metric: 'hist', variant, values: [iter, 1, 2] });
        lines.push({
          type: 'plot',
          task,
          iter,
          metric: 'roc',
          variant,
          plot_str: `{"data": [{"y": [${iter}]}], "layout": {"images": [{"source": "https://x/${iter}.png"}]}}`,
        });
        lines.push({
          type: 'training_debug_image',
          task,
          iter,
          metric: 'img',
          variant,
          key: `k${iter % 3}`,
          url: `https://files.example.com/${task}/${iter % 3}.png`,
        });
      }
      lines.push({
        type: 'log',
        task,
        level: 'info',
        msg: `target log ${iter}\nsecond line`,
        timestamp: Date.UTC(2024, 0, 1) + iter,
      });
    }
    lines.push({
      type: 'training_stats_scalar',
      task,
      iter: -2147483648,
      metric: 'Summary',
      variant: 'acc',
      value: 0.9,
    });
  }
  for (const model of c.models)
    lines.push({
      type: 'training_stats_scalar',
      task: model,
      model_event: true,
      iter: 1,
      metric: 'loss',
      variant: 'train',
      value: 1,
    });
  // Registered now, before any hostile request: otherwise the other company could name a witness id first and own it.
  for (const task of c.witnesses)
    lines.push({ type: 'log', task, level: 'info', msg: 'registration', timestamp: Date.UTC(2023, 0, 1) });
  return lines.map((line) => JSON.stringify(line)).join('\n');
}

/** Reads that hand out a scroll id or a navigation state, per target task. */
function scrollSources(task: string): Array<[string, Record<string, unknown>]> {
  return [
    ['events.get_task_events', { task, batch_size: 1 }],
    ['events.get_task_events', { task, batch_size: 1, event_type: 'plot', order: 'desc' }],
    ['events.scalar_metrics_iter_raw', { task, metric: { metric: 'loss' }, batch_size: 1, count_total: true }],
    ['events.get_scalar_metric_data', { task, metric: 'loss' }],
    ['events.get_task_plots', { task, iters: 1 }],
    ['events.get_multi_task_plots', { tasks: [task], iters: 1 }],
    ['events.plots', { metrics: [{ task }], iters: 1 }],
    ['events.debug_images', { metrics: [{ task, metric: 'img' }], iters: 1 }],
    ['events.get_plot_sample', { task, metric: 'roc' }],
    ['events.get_debug_image_sample', { task, metric: 'img', variant: 'train' }],
  ];
}

export interface SetupProblem {
  step: string;
  answer: string;
}

/** Prepares the world; returns what did not go as a well-behaved client expects (the run goes on regardless). */
export async function setUpWorld(
  port: number,
  world: World,
  deadlineMs: number,
  waitStored: () => Promise<void>,
  /** The token each company uses instead of its auth.login one (companion mode: ClearML's). */
  tokenOf?: (c: CompanyWorld) => string,
): Promise<SetupProblem[]> {
  const problems: SetupProblem[] = [];
  const keys: CompanyKey[] = ['a', 'b'];
  for (const key of keys) {
    const c = world.companies[key];
    const login = await apiCall(
      port,
      'auth.login',
      {},
      basic(c.credential.access_key, c.credential.secret_key),
      deadlineMs,
    );
    if (login.status !== 200)
      throw new Error(`auth.login for company ${key} answered ${login.status}: ${login.text.slice(0, 300)}`);
    c.token = tokenOf?.(c) ?? (login.json.data.token as string);
  }
  for (const key of keys) {
    const c = world.companies[key];
    const auth = bearer(c.token);
    const events = await apiCall(
      port,
      'events.add_batch',
      targetEvents(world, key),
      auth,
      deadlineMs,
      'application/json-lines',
    );
    if (events.status !== 200)
      problems.push({ step: `seed events of ${key}`, answer: `${events.status} ${events.text.slice(0, 300)}` });
    for (let i = 0; i < 3; i++) {
      const created = await apiCall(
        port,
        'reports.create',
        {
          name: `fuzz report ${key}${i} ${world.seed}`,
          tags: ['fuzz', `t${i}`],
          report: '# hello',
          ...(i === 2 ? { project: c.projects[0] } : {}),
        },
        auth,
        deadlineMs,
      );
      if (created.status !== 200) {
        problems.push({ step: `reports.create ${key}${i}`, answer: `${created.status} ${created.text.slice(0, 300)}` });
        continue;
      }
      c.reports.push(created.json.data.id as string);
      c.projects.push(created.json.data.project_id as string);
    }
    if (c.reports[1] !== undefined) await apiCall(port, 'reports.publish', { task: c.reports[1] }, auth, deadlineMs);
    if (c.reports[2] !== undefined) await apiCall(port, 'reports.archive', { task: c.reports[2] }, auth, deadlineMs);
  }
  await waitStored();
  for (const key of keys) {
    const c = world.companies[key];
    const auth = bearer(c.token);
    for (const task of c.targets.slice(0, 2)) {
      for (const [op, body] of scrollSources(task)) {
        const answer = await apiCall(port, op, body, auth, deadlineMs);
        const id = answer.json?.data?.scroll_id;
        if (typeof id === 'string' && id !== '') c.scrolls.push({ op, id });
        else
          problems.push({
            step: `${op} scroll id for ${key}`,
            answer: `${answer.status} ${answer.text.slice(0, 200)}`,
          });
      }
    }
    const listed = await apiCall(port, 'reports.get_all_ex', { scroll_id: null, size: 1 }, auth, deadlineMs);
    if (typeof listed.json?.data?.scroll_id === 'string')
      c.scrolls.push({ op: 'reports.get_all_ex', id: listed.json.data.scroll_id });
  }
  return problems;
}
