/**
 * The recycled-URL rules of debug images (events.md §8.1, §8.2, §13 #47)
 * computed from InfluxDB without reading a variant's whole history: the
 * pure rules live in debug-images/debug-image-validity.ts and get the few
 * (iteration, url) uses that decide them.
 */
import { compareCodePoints } from '../common/code-point-order.js';
import { influxQlString } from '../../../shared/events/storage-layout.js';
import type { QueryDeps } from '../../query-deps.js';
import { debugImageVariantRanges, type VariantRange } from '../debug-images/debug-image-sample-navigation.js';
import { lastInvalidIteration, type ImageUse } from '../debug-images/debug-image-validity.js';
import {
  decodePositions,
  HAS_ITER,
  runStatements,
  scopeCondition,
  seriesCondition,
  where,
  type EventPosition,
} from './plot-image-influx.js';
import type { Namespace } from './entity-access.js';

export interface VariantRef {
  readonly metric: string;
  readonly variant: string;
}

const urlEquals = (url: string): string => `"u" = ${influxQlString(url)}`;

/**
 * The variants of `newest` (narrow image rows of one task, each variant's
 * newest first and holding every use at its greatest iteration), each with
 * its §8.1 last_invalid_iteration (null: none). Three facts decide it per
 * variant: its greatest iteration, the URLs used there (the smallest is
 * "the URL whose last use is highest"), both in `newest`, and the two
 * latest uses of that URL, read here unless `known` (the image index,
 * by JSON [metric, variant]) already holds the answer.
 */
export async function imageValidity(
  deps: QueryDeps,
  scope: string,
  newest: readonly EventPosition[],
  known: ReadonlyMap<string, number | null> = new Map(),
): Promise<Array<VariantRef & { last_invalid_iteration: number | null }>> {
  const atTop = new Map<string, EventPosition[]>();
  for (const p of newest) {
    const key = JSON.stringify([p.metric, p.variant]);
    const top = atTop.get(key);
    if (top === undefined || p.iter! > top[0]!.iter!) atTop.set(key, [p]);
    else if (p.iter === top[0]!.iter) top.push(p);
  }
  const keyOf = ([p]: EventPosition[]) => JSON.stringify([p!.metric, p!.variant]);
  const unknown = [...atTop.values()].filter((rows) => !known.has(keyOf(rows)));
  const chosen = unknown.map(smallestUrl);
  const uses = await runStatements(
    deps.influx,
    unknown.map(
      ([p], i) =>
        `SELECT "u" FROM "image" WHERE ${where(scope, seriesCondition(p!.metric, p!.variant), HAS_ITER, urlEquals(chosen[i]!))} ORDER BY time DESC LIMIT 2`,
    ),
  );
  const read = new Map(
    unknown.map((rows, i) => {
      const others: ImageUse[] = rows.filter((u) => u.url !== chosen[i]).map(asUse);
      const own = decodePositions(uses[i]!.series ?? []).map(asUse);
      return [keyOf(rows), lastInvalidIteration([...others, ...own]) ?? null];
    }),
  );
  return [...atTop.values()].map((rows) => ({
    metric: rows[0]!.metric,
    variant: rows[0]!.variant,
    last_invalid_iteration: known.get(keyOf(rows)) ?? read.get(keyOf(rows)) ?? null,
  }));
}

/**
 * §8.2 ranges of the task's variants with images (of one metric, or all),
 * ascending by (metric, variant). min_iteration needs the last use of every
 * distinct URL: each key series' latest row gives it for series holding a
 * single URL (the SDK's case: the key names the file); series holding
 * several URLs get one "latest use of this URL" query per URL.
 */
export async function imageVariantRanges(
  deps: QueryDeps,
  company: string,
  namespace: Namespace,
  task: string,
  metric?: string,
): Promise<VariantRange[]> {
  const condition = where(
    scopeCondition(company, namespace, [task]),
    metric === undefined ? undefined : seriesCondition(metric),
    HAS_ITER,
  );
  const [latest, distinct] = await runStatements(deps.influx, [
    `SELECT "u" FROM "image" WHERE ${condition} GROUP BY "m","v","k" ORDER BY time DESC LIMIT 1`,
    `SELECT DISTINCT("u") FROM "image" WHERE ${condition} GROUP BY "m","v","k"`,
  ]);
  const uses: Array<EventPosition & { url: string }> = [];
  const multi: Array<{ series: { metric: string; variant: string; key: string }; url: string }> = [];
  for (const s of distinct!.series ?? []) {
    if (s.values.length < 2) continue;
    const series = { metric: s.tags?.m ?? '', variant: s.tags?.v ?? '', key: s.tags?.k ?? '' };
    for (const row of s.values) multi.push({ series, url: row[s.columns.indexOf('distinct')] as string });
  }
  const multiSeries = new Set(multi.map((m) => JSON.stringify(m.series)));
  for (const s of latest!.series ?? []) {
    const id = JSON.stringify({ metric: s.tags?.m ?? '', variant: s.tags?.v ?? '', key: s.tags?.k ?? '' });
    if (!multiSeries.has(id)) uses.push(...(decodePositions([s]) as Array<EventPosition & { url: string }>));
  }
  const perUrl = await runStatements(
    deps.influx,
    multi.map(({ series, url }) => {
      // Tags come back encoded: compare them as stored.
      const tags = `"m" = ${influxQlString(series.metric)} AND "v" = ${influxQlString(series.variant)} AND "k" = ${influxQlString(series.key)}`;
      return `SELECT "u" FROM "image" WHERE ${where(condition, tags, urlEquals(url))} GROUP BY "m","v" ORDER BY time DESC LIMIT 1`;
    }),
  );
  for (const r of perUrl) uses.push(...(decodePositions(r.series ?? []) as Array<EventPosition & { url: string }>));
  return debugImageVariantRanges(
    uses.map((u) => ({ iter: u.iter!, metric: u.metric, variant: u.variant, url: u.url })),
  );
}

function smallestUrl(rows: readonly EventPosition[]): string {
  return rows.map((r) => r.url!).sort(compareCodePoints)[0] ?? '';
}

const asUse = (p: EventPosition): ImageUse => ({ iter: p.iter!, url: p.url! });
