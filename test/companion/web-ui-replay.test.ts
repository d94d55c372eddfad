/**
 * Replays every events.* and reports.* request of the stock ClearML web UI
 * (test/companion/web-ui-requests.ts, written from allegroai/clearml-web's
 * effects) against both modes: standalone, and companion mode beside the
 * ClearML stand-in (issue 13). Each request goes as the UI sends it
 * (`/v999.0/`, the `clearml_token_basic` cookie, `X-Allegro-Client`) and
 * its answer is checked for what the UI reads from it. One service per
 * mode; the events the requests read are written once, through the SDK's
 * path (events.add_batch with a Bearer token).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { ClearmlStandIn } from './clearml-stand-in.js';
import { UI_REQUESTS, type Mode, type UiAnswer, type UiCallOptions, type UiWorld } from './web-ui-requests.js';
import { eventually } from '../harness/eventually.js';
import { image, log, plot, scalar } from '../harness/event-builders.js';

/** What the web UI's interceptor sends as its version (@common/core/interceptors/webapp-interceptor.ts). */
const CLIENT_HEADER = 'Webapp-2.0.0';

interface Running {
  world: UiWorld;
  stop(): Promise<void>;
}

function seedEvents(task: string, task2: string, model: string, logTimes: readonly number[]): object[] {
  // Reported a second apart, as a training loop does (charts by time group points by timestamp).
  const loss = (t: string, iter: number, value: number, extra: object = {}) =>
    scalar(t, 'loss', 'train', iter, value, { timestamp: logTimes[0]! + iter * 1000, ...extra });
  const single = (t: string, value: number, extra: object = {}) =>
    scalar(t, 'Summary', 'acc', -2147483648, value, extra);
  const chart = (t: string, metric: string, variant: string, iter: number, extra: object = {}) =>
    plot(t, metric, variant, iter, {
      timestamp: undefined,
      plot_str: JSON.stringify({ data: [{ x: [iter], y: [1] }] }),
      ...extra,
    });
  const sample = (variant: string, iter: number) =>
    image(task, 'samples', variant, iter, {
      url: `https://files.example/${task}/${variant}_${iter}.jpg`,
      key: `${variant}_${iter}`,
    });
  const asModel = { model_event: true };
  return [
    ...[1, 2, 3].map((iter) => loss(task, iter, iter / 10)),
    single(task, 0.9),
    chart(task, 'roc', 'v', 1),
    chart(task, 'roc', 'v', 2),
    chart(task, 'confusion', 'm', 2),
    ...[1, 2, 3].flatMap((iter) => [sample('img', iter), sample('mask', iter)]),
    ...logTimes.map((timestamp, i) => log(task, timestamp, `line ${i}`)),
    ...[1, 2].map((iter) => loss(task2, iter, iter / 5)),
    single(task2, 0.8),
    chart(task2, 'roc', 'v', 1),
    loss(model, 1, 1, asModel),
    loss(model, 2, 0.5, asModel),
    single(model, 0.7, asModel),
    chart(model, 'roc', 'v', 1, asModel),
  ];
}

async function startWorld(mode: Mode): Promise<Running> {
  const ids = { task: unique('task-'), task2: unique('task2-'), model: unique('model-'), draft: unique('draft-') };
  const project = { id: unique('clearml-project-'), name: unique('Vision ') };
  const project2 = { id: unique('clearml-project-'), name: unique('Audio ') };
  const names = new Map<string, string>();
  let clearml: ClearmlStandIn | undefined;
  let h: Harness;
  let token: string;
  let userId: string;
  if (mode === 'companion') {
    const secret = randomBytes(32).toString('base64url');
    clearml = new ClearmlStandIn(secret);
    await clearml.start();
    h = await startHarness({
      target: 'all',
      env: { CLEARML_SERVER_URL: clearml.url, CLEARML_TOKEN_SECRET: secret, CLEARML_TIMEOUT_MS: '2000' },
    });
    const company = h.credentials.a.company;
    userId = unique('user-');
    token = clearml.issueToken(userId, company);
    const inProject = { id: project.id, name: project.name };
    const task = (id: string, name: string, status: string) => {
      clearml!.tasks.set(id, { id, company, name, project: inProject, status, type: 'training' });
      names.set(id, name);
    };
    task(ids.task, 'resnet training', 'in_progress');
    task(ids.task2, 'resnet training 2', 'completed');
    task(ids.draft, 'queued run', 'queued');
    clearml.models.set(ids.model, { id: ids.model, company, name: 'resnet model', project: inProject, ready: false });
    names.set(ids.model, 'resnet model');
    for (const p of [project, project2]) clearml.projects.set(p.id, { ...p, company });
  } else {
    h = await startHarness({ target: 'all' });
    token = await h.login(h.credentials.a);
    userId = h.credentials.a.user;
  }
  const company = h.credentials.a.company;

  const base = Date.now() - 60_000;
  const logTimes = [0, 1, 2, 3, 4].map((i) => base + i * 1000);
  const added = await h.call('v2.23/events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: seedEvents(ids.task, ids.task2, ids.model, logTimes)
      .map((e) => JSON.stringify(e))
      .join('\n'),
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  expect(added.body.data.errors, JSON.stringify(added.body.data)).toBe(0);

  const ui = async (operation: string, body: unknown, options: UiCallOptions = {}): Promise<UiAnswer> => {
    const headers: Record<string, string> = { cookie: `clearml_token_basic=${token}` };
    if (!options.link) headers['x-allegro-client'] = CLIENT_HEADER;
    if (options.tenant) headers['x-allegro-tenant'] = company;
    const r = await h.call(`v999.0/${operation}${options.query ? `?${options.query}` : ''}`, body, {
      method: options.method,
      headers,
    });
    const envelope = typeof r.body === 'object' && r.body !== null ? r.body : undefined;
    return {
      status: r.status,
      meta: envelope?.meta,
      data: envelope?.data,
      text: typeof r.body === 'string' ? r.body : JSON.stringify(r.body),
    };
  };
  const world: UiWorld = {
    mode,
    ...ids,
    nameOf: (id) => names.get(id) ?? id,
    project,
    project2,
    userId,
    company,
    logTimes,
    ui,
    async newReport() {
      const name = `ui report ${randomBytes(6).toString('hex')}`;
      const r = await ui('reports.create', {
        name,
        comment: 'about it',
        project: project.id,
        projectName: project.name,
      });
      expect(r.status, JSON.stringify(r.meta)).toBe(200);
      return { ...r.data, name };
    },
  };

  // Every event is stored before the first request (the writer takes about a second).
  await eventually(
    () => ui('events.get_task_log', { task: ids.task }),
    (r) => r.data?.total === logTimes.length,
  );
  await eventually(
    () => ui('events.get_multi_task_plots', { tasks: [ids.task, ids.task2], iters: 2 }),
    (r) => Object.keys(r.data?.plots ?? {}).length === 2,
  );
  await eventually(
    () => ui('events.get_task_metrics', { tasks: [ids.task], event_type: 'training_debug_image' }),
    (r) => r.data?.metrics?.[0]?.metrics?.length === 1,
  );
  await eventually(
    () => ui('events.get_task_plots', { task: ids.model, model_events: true }),
    (r) => r.data?.total === 1,
  );
  await eventually(
    () => ui('events.get_task_single_value_metrics', { tasks: [ids.task, ids.task2] }),
    (r) => r.data?.tasks?.length === 2,
  );
  await eventually(
    () => ui('events.get_task_single_value_metrics', { tasks: [ids.model], model_events: true }),
    (r) => r.data?.tasks?.length === 1,
  );

  return {
    world,
    async stop() {
      await h.stop();
      await clearml?.stop();
    },
  };
}

for (const mode of ['standalone', 'companion'] as const) {
  describe(`web UI requests, ${mode}`, () => {
    let running: Running | undefined;
    beforeAll(async () => {
      running = await startWorld(mode);
    }, 120_000);
    afterAll(async () => {
      await running?.stop();
    });

    for (const request of UI_REQUESTS.filter((r) => r.modes === undefined || r.modes.includes(mode))) {
      it(`${request.operation}: ${request.name} (clearml-web src/app/${request.source})`, async () => {
        const w = running!.world;
        const answer = await w.ui(request.operation, await request.body(w), request.options?.(w));
        expect(answer.status, `${answer.meta?.result_subcode}: ${answer.meta?.result_msg}`).toBe(200);
        await request.check(answer.data, w, answer);
      });
    }
  });
}
