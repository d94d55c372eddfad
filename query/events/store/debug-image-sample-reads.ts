/**
 * Store side of the debug-image viewer, events.get_debug_image_sample
 * (events.md §8.2) and events.next_debug_image_sample (§8.3): the images a
 * call can pick, each variant's nearest eligible iteration read from
 * InfluxDB. The rules are debug-images/debug-image-sample-navigation.ts.
 */
import type { QueryDeps } from '../../query-deps.js';
import type { DebugImageSampleState, VariantRange } from '../debug-images/debug-image-sample-navigation.js';
import type { Namespace } from './entity-access.js';
import {
  decodeEvents,
  decodePositions,
  HAS_URL,
  iterTime,
  runStatements,
  scopeCondition,
  seriesCondition,
  where,
} from './plot-image-influx.js';
import type { StoredEvent } from './stored-events.js';

export interface ImageCandidate {
  readonly iter: number;
  readonly metric: string;
  readonly variant: string;
  readonly url?: string;
  readonly event: StoredEvent;
}

/** The variant's images with a url at its latest iteration within [min_iteration, iteration]. */
export async function latestEligible(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  task: string,
  range: VariantRange,
  iteration: number | undefined,
) {
  const variant = where(
    scopeCondition(company, namespace, [task]),
    seriesCondition(range.metric, range.variant),
    HAS_URL,
  );
  const [nearest] = await nearestEligible(deps, [
    {
      variant,
      condition: where(
        `time >= ${iterTime(range.min_iteration)}`,
        iteration === undefined ? undefined : `time <= ${iterTime(iteration)}`,
      ),
      order: 'DESC',
    },
  ]);
  return nearest!;
}

/**
 * What next_debug_image_sample can pick: the images at the current
 * iteration (other variants of it come first), and for each variant of the
 * pool its images at its nearest eligible iteration beyond the current one
 * (at or above its min_iteration, with a url).
 */
export async function nextCandidates(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  state: DebugImageSampleState,
  earlier: boolean,
  nextIteration: boolean,
) {
  const scope = scopeCondition(company, namespace, [state.task]);
  const pool = state.ranges.filter((r) => !state.navigate_current_metric || r.metric === state.metric);
  const current = state.iteration;
  const searches: NearestSearch[] = [];
  for (const r of pool) {
    const variant = where(scope, seriesCondition(r.metric, r.variant), HAS_URL);
    if (!nextIteration && current !== null)
      searches.push({ variant, condition: `time = ${iterTime(current)}`, order: 'DESC' });
    if (earlier && current !== null && !(r.min_iteration < current)) continue;
    const beyond = current === null ? undefined : `time ${earlier ? '<' : '>'} ${iterTime(current)}`;
    searches.push({
      variant,
      condition: where(`time >= ${iterTime(r.min_iteration)}`, beyond),
      order: earlier ? 'DESC' : 'ASC',
    });
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
    searches.map(
      (s) => `SELECT "u" FROM "image" WHERE ${where(s.variant, s.condition)} ORDER BY time ${s.order} LIMIT 1`,
    ),
  );
  const iterations = firsts.map((r) => decodePositions(r.series ?? [])[0]?.iter ?? null);
  const found = searches
    .map((s, i) => ({ s, iter: iterations[i] }))
    .filter((x): x is { s: NearestSearch; iter: number } => x.iter !== null);
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
