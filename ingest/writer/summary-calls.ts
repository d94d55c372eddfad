/**
 * What the summary script (summary-applier.ts) is asked to apply, and how
 * a batch's entity summaries become as few script calls as keep their
 * meaning.
 *
 * A batch of a partition holds several requests' summaries of one entity
 * (2-4 in bench:ingest); each script call costs Redis a fixed part (type
 * checks, the entity record) and a part per series (decoding and encoding
 * its stored statistics), so consecutive summaries of an entity go in one
 * call. The merge is exactly what applying them one after the other does:
 * the newest value, the strict minimum and maximum with the earliest on a
 * tie, the first request's first value, the latest label; the receive time
 * and user of the latest request; and the running mean's rounding after
 * each request (events.md §1.11), which depends on the stored mean, so it
 * stays in the script as one (count, sum, mean) step per request.
 *
 * Each entity's calls stay in stream order (a later summary must not
 * overtake an earlier one: the summary_seq fence would then skip the
 * earlier one for good), different entities' in any order, as they touch
 * different keys. So the calls go in waves, the n-th call of every entity
 * in wave n, and a wave's calls are issued together: one socket write and
 * one round trip.
 */
import type { EntitySummary, ScalarStats } from '../../shared/events/wire-format.js';
import type { BatchSummary } from './write-batch.js';

/**
 * Scalars (and listing entries) per script call. A request touching
 * thousands of series would otherwise pass hundreds of thousands of
 * arguments in one call, beyond what the client can spread onto its stack.
 */
export const CHUNK = 1000;
/** Summaries merged into one call at most (each brings an image payload and a mean step per series). */
const MAX_MEMBERS = 64;

/** One request's part of a series' running mean. */
export interface MeanStep {
  count: number;
  /** '' when the request's sum overflowed a double: the script combines means then */
  sum: string;
  mean: number;
}

/** A series' statistics over the call's summaries: the last value, extremes and first value, the latest label, and one mean step a summary. */
export interface SeriesUpdate extends Omit<ScalarStats, 'count' | 'sum' | 'mean' | 'x_axis_label'> {
  label: string | undefined;
  steps: MeanStep[];
}

/** One script call: one summary's chunk, or several single-chunk summaries of one entity merged. */
export interface SummaryCall {
  c: string;
  n: 't' | 'm';
  e: string;
  /** arrival seq of the last summary, and of the first (the same for one summary) */
  seq: number;
  firstSeq: number;
  chunk: number;
  at: number;
  user: string;
  lastIter: number | undefined;
  /** receive time of the latest summary with scalars in this call */
  scalarAt: number | undefined;
  /** null: no iteration; undefined: a summary did not say (an older ingest) */
  maxIter: number | null | undefined;
  /** per summary, its image payload (imageIndexPayload) */
  images: string[];
  series: SeriesUpdate[];
  listing: string[];
  /** the summaries this call applies, in stream order */
  members: readonly BatchSummary[];
}

export function chunkCount(summary: EntitySummary): number {
  return Math.max(1, Math.ceil(summary.scalars.length / CHUNK), Math.ceil(summary.listing.length / CHUNK));
}

export function chunkOf(summary: EntitySummary, chunk: number): Pick<EntitySummary, 'scalars' | 'listing'> {
  return {
    scalars: summary.scalars.slice(chunk * CHUNK, (chunk + 1) * CHUNK),
    listing: summary.listing.slice(chunk * CHUNK, (chunk + 1) * CHUNK),
  };
}

/**
 * Whether the request's sum overflowed a double at ingest: ingests send it
 * clamped to ±Number.MAX_VALUE (JSON cannot carry Infinity; older ones sent
 * null). The script then combines means instead of sums.
 */
function sumOverflowed(s: ScalarStats): boolean {
  return typeof s.sum !== 'number' || !Number.isFinite(s.sum) || Math.abs(s.sum) === Number.MAX_VALUE;
}

/**
 * The request's mean: the one ingest computed without overflow when it sent
 * one, else sum / count; a summary of an old ingest whose sum overflowed gets
 * the midpoint of min and max, the best bound it still has.
 */
export function requestMean(s: ScalarStats): number {
  if (typeof s.mean === 'number' && Number.isFinite(s.mean)) return s.mean;
  if (!sumOverflowed(s)) return s.sum / s.count;
  return s.min / 2 + s.max / 2;
}

const meanStep = (s: ScalarStats): MeanStep => ({
  count: s.count,
  sum: sumOverflowed(s) ? '' : String(s.sum),
  mean: requestMean(s),
});

/** Folds a later report of a series into what the earlier ones made, as the script would apply it after them. */
function addReport(series: SeriesUpdate, s: ScalarStats): void {
  series.value = s.value;
  series.iter = s.iter;
  series.timestamp = s.timestamp;
  if (s.min < series.min) {
    series.min = s.min;
    series.minIter = s.minIter;
  }
  if (s.max > series.max) {
    series.max = s.max;
    series.maxIter = s.maxIter;
  }
  if (typeof s.x_axis_label === 'string') series.label = s.x_axis_label;
  series.steps.push(meanStep(s));
}

function newSeries(s: ScalarStats): SeriesUpdate {
  return {
    metric: s.metric,
    variant: s.variant,
    value: s.value,
    iter: s.iter,
    timestamp: s.timestamp,
    min: s.min,
    minIter: s.minIter,
    max: s.max,
    maxIter: s.maxIter,
    first: s.first,
    firstIter: s.firstIter,
    label: typeof s.x_axis_label === 'string' ? s.x_axis_label : undefined,
    steps: [meanStep(s)],
  };
}

const seriesKey = (metric: string, variant: string) => JSON.stringify([metric, variant]);
const definedIter = (v: number | null | undefined): v is number => v !== undefined && v !== null;

/**
 * The call applying chunk `chunk` of one summary, or (chunk 0) several
 * single-chunk summaries of one entity in stream order. `imagePayload`
 * makes a summary's image payload (chunk 0 only: later chunks carry none).
 */
export function summaryCall(
  members: readonly BatchSummary[],
  chunk: number,
  imagePayload: (summary: EntitySummary) => string,
): SummaryCall {
  const first = members[0]!.summary;
  const call: SummaryCall = {
    c: first.c,
    n: first.n,
    e: first.e,
    seq: members[members.length - 1]!.seq,
    firstSeq: members[0]!.seq,
    chunk,
    at: first.at,
    user: first.u ?? '',
    lastIter: undefined,
    scalarAt: undefined,
    maxIter: first.maxIter,
    images: [],
    series: [],
    listing: [],
    members,
  };
  const series = new Map<string, SeriesUpdate>();
  const listed = new Set<string>();
  for (const { summary } of members) {
    // last_change takes the latest receive time (never going back) and the user of the last request with it.
    if (summary.at >= call.at) {
      call.at = summary.at;
      call.user = summary.u ?? '';
    }
    if (definedIter(summary.lastIter) && !(call.lastIter !== undefined && call.lastIter >= summary.lastIter))
      call.lastIter = summary.lastIter;
    if (
      summary !== first &&
      definedIter(summary.maxIter) &&
      !(definedIter(call.maxIter) && call.maxIter >= summary.maxIter)
    )
      call.maxIter = summary.maxIter;
    call.images.push(chunk === 0 ? imagePayload(summary) : '[]');
    const part = chunkOf(summary, chunk);
    if (part.scalars.length > 0 && !(call.scalarAt !== undefined && call.scalarAt > summary.at))
      call.scalarAt = summary.at;
    for (const s of part.scalars) {
      const key = seriesKey(s.metric, s.variant);
      const known = series.get(key);
      if (known === undefined) series.set(key, newSeries(s));
      else addReport(known, s);
    }
    for (const entry of part.listing) listed.add(entry.join('\u001f'));
  }
  call.series = [...series.values()];
  call.listing = [...listed];
  return call;
}

/** A summary that merges with its entity's neighbours: one chunk, and every field a current ingest sends. */
const mergeable = (summary: EntitySummary) =>
  chunkCount(summary) === 1 && summary.images !== undefined && summary.maxIter !== undefined;

/**
 * The batch's summaries as waves of groups: each group one entity's
 * consecutive summaries that apply in one call (a summary that does not
 * merge stands alone), the n-th group of every entity in wave n.
 */
export function summaryGroupWaves(summaries: readonly BatchSummary[]): BatchSummary[][][] {
  const byEntity = new Map<string, BatchSummary[][]>();
  for (const entry of summaries) {
    const { c, n, e } = entry.summary;
    const key = `${c}\u0000${n}\u0000${e}`;
    let groups = byEntity.get(key);
    if (groups === undefined) byEntity.set(key, (groups = []));
    const last = groups[groups.length - 1];
    if (last !== undefined && mergeable(entry.summary) && mergeable(last[0]!.summary) && fits(last, entry.summary))
      last.push(entry);
    else groups.push([entry]);
  }
  const waves: BatchSummary[][][] = [];
  for (const groups of byEntity.values()) groups.forEach((group, i) => (waves[i] ??= []).push(group));
  return waves;
}

/** Whether `summary` joins the group within one call's bounds. */
function fits(group: readonly BatchSummary[], summary: EntitySummary): boolean {
  if (group.length >= MAX_MEMBERS) return false;
  let scalars = summary.scalars.length;
  let listing = summary.listing.length;
  for (const { summary: s } of group) {
    scalars += s.scalars.length;
    listing += s.listing.length;
  }
  return scalars <= CHUNK && listing <= CHUNK;
}
