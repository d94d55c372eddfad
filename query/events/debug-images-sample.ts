/**
 * The debug-image viewer: events.get_debug_image_sample (events.md §8.2)
 * and events.next_debug_image_sample (§8.3). The rules are
 * domain/debug-image-sample-navigation.ts; InfluxDB supplies per variant
 * the images at its nearest eligible iteration (at or above the variant's
 * min_iteration, with a url), which hold every image the rules can pick.
 */
import { defineOperation, type Operation } from '../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../query-deps.js';
import {
  debugImageSample,
  nextDebugImageSample,
  NO_ITERATION_BOUNDS,
  requireNextSampleState,
  type DebugImageSampleState,
  type VariantRange,
} from './domain/navigation-state.js';
import { imageVariantRanges } from './store/debug-image-validity-store.js';
import { NavigationStore } from './store/navigation-store.js';
import { nextSampleRequest } from './common/log-plot-image-fields.js';
import { decodeEvents, decodePositions, HAS_URL, iterTime, runStatements, scopeCondition, seriesCondition, where } from './store/plot-image-influx.js';
import { namespaceOf, type Namespace } from './store/entity-access.js';
import type { StoredEvent } from './store/stored-events.js';

const KIND = 'debug_image_sample';

const getRequest = requestSchema({
  task: str({ required: true }),
  metric: str({ required: true }),
  variant: str({ required: true }),
  iteration: int(),
  navigate_current_metric: bool({ default: true }),
  refresh: bool({ default: false }),
  scroll_id: str(),
  model_events: bool({ default: false }),
});


interface ImageCandidate {
  readonly iter: number;
  readonly metric: string;
  readonly variant: string;
  readonly url?: string;
  readonly event: StoredEvent;
}

export function getDebugImageSampleOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.get_debug_image_sample',
    minVersion: '2.12',
    request: getRequest,
    async handle(req, context) {
      const company = context.identity.company;
      const namespace = namespaceOf(req.model_events);
      await deps.entities.requireOne(company, namespace, req.task);
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const { id, state } = await store.openSample<DebugImageSampleState>(company, namespace, req.scroll_id, KIND, {
        refresh: req.refresh,
        start: { task: req.task, navigate_current_metric: req.navigate_current_metric, metric: req.metric, variant: req.variant, iteration: null },
        rangesOf: (s) => imageVariantRanges(deps, company, namespace, s.task, s.navigate_current_metric ? s.metric : undefined),
      });
      const target = { metric: req.metric, variant: req.variant };
      const range = state.ranges.find((r) => r.metric === target.metric && r.variant === target.variant);
      const candidates = range === undefined ? [] : await latestEligible(deps, company, namespace, state.task, range, req.iteration);
      const answer = debugImageSample(state, target, candidates, req.iteration);
      await store.save(company, id, { kind: KIND, namespace, state: answer.state });
      return { scroll_id: id, event: answer.event?.event ?? null, min_iteration: answer.min_iteration, max_iteration: answer.max_iteration };
    },
  });
}

export function nextDebugImageSampleOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.next_debug_image_sample',
    minVersion: '2.12',
    request: nextSampleRequest,
    async handle(req, context) {
      const company = context.identity.company;
      const store = new NavigationStore(deps.redis, deps.keyPrefix);
      const loaded = await store.load<DebugImageSampleState>(company, req.scroll_id, KIND);
      const state = requireNextSampleState(loaded?.state, req.task, req.scroll_id);
      const namespace = loaded!.namespace;
      await deps.entities.requireOne(company, namespace, req.task);
      const candidates = await nextCandidates(deps, company, namespace, state, req.navigate_earlier, req.next_iteration);
      const answer = nextDebugImageSample(state, candidates, req.navigate_earlier, req.next_iteration);
      if (!answer.moved) return { scroll_id: req.scroll_id, event: null, ...NO_ITERATION_BOUNDS };
      await store.save(company, req.scroll_id!, { kind: KIND, namespace, state: answer.state });
      return { scroll_id: req.scroll_id, event: answer.event?.event ?? null, min_iteration: answer.min_iteration, max_iteration: answer.max_iteration };
    },
  });
}

/** The variant's images with a url at its latest iteration within [min_iteration, iteration]. */
async function latestEligible(deps: QueryDeps, company: string, namespace: Namespace, task: string, range: VariantRange, iteration: number | undefined) {
  const variant = where(scopeCondition(company, namespace, [task]), seriesCondition(range.metric, range.variant), HAS_URL);
  const [nearest] = await nearestEligible(deps, [
    { variant, condition: where(`time >= ${iterTime(range.min_iteration)}`, iteration === undefined ? undefined : `time <= ${iterTime(iteration)}`), order: 'DESC' },
  ]);
  return nearest!;
}

/**
 * What next_debug_image_sample can pick: the images at the current
 * iteration (other variants of it come first), and for each variant of the
 * pool its images at its nearest eligible iteration beyond the current one
 * (at or above its min_iteration, with a url).
 */
async function nextCandidates(deps: QueryDeps, company: string, namespace: Namespace, state: DebugImageSampleState, earlier: boolean, nextIteration: boolean) {
  const scope = scopeCondition(company, namespace, [state.task]);
  const pool = state.ranges.filter((r) => !state.navigate_current_metric || r.metric === state.metric);
  const current = state.iteration;
  const searches: NearestSearch[] = [];
  for (const r of pool) {
    const variant = where(scope, seriesCondition(r.metric, r.variant), HAS_URL);
    if (!nextIteration && current !== null) searches.push({ variant, condition: `time = ${iterTime(current)}`, order: 'DESC' });
    if (earlier && current !== null && !(r.min_iteration < current)) continue;
    const beyond = current === null ? undefined : `time ${earlier ? '<' : '>'} ${iterTime(current)}`;
    searches.push({ variant, condition: where(`time >= ${iterTime(r.min_iteration)}`, beyond), order: earlier ? 'DESC' : 'ASC' });
  }
  return (await nearestEligible(deps, searches)).flat();
}

interface NearestSearch {
  /** One variant's images with a url. */
  readonly variant: string;
  readonly condition: string;
  readonly order: 'ASC' | 'DESC';
}

/**
 * For each search, every image of the variant at the first iteration in
 * `order` satisfying the condition: the iteration first (one row, all file
 * series merged by InfluxDB), then all its images (the greatest url wins).
 */
async function nearestEligible(deps: QueryDeps, searches: readonly NearestSearch[]): Promise<ImageCandidate[][]> {
  const firsts = await runStatements(
    deps.influx,
    searches.map((s) => `SELECT "u" FROM "image" WHERE ${where(s.variant, s.condition)} ORDER BY time ${s.order} LIMIT 1`),
  );
  const iterations = firsts.map((r) => decodePositions(r.series ?? [])[0]?.iter ?? null);
  const found = searches.map((s, i) => ({ s, iter: iterations[i] })).filter((x): x is { s: NearestSearch; iter: number } => x.iter !== null);
  const events = await runStatements(
    deps.influx,
    found.map(({ s, iter }) => `SELECT * FROM "image" WHERE ${where(s.variant, `time = ${iterTime(iter)}`)}`),
  );
  const byIndex = new Map(found.map((x, k) => [x.s, candidatesOf(events[k]!.series ?? [])]));
  return searches.map((s) => byIndex.get(s) ?? []);
}

function candidatesOf(series: Parameters<typeof decodeEvents>[0]): ImageCandidate[] {
  return decodeEvents(series, 'image').map(({ event, iter }) => ({
    iter: iter!,
    metric: event.metric as string,
    variant: event.variant as string,
    url: event.url as string | undefined,
    event,
  }));
}
