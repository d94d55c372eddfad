/**
 * InfluxQL for the plot and debug-image reads. InfluxDB does the selecting:
 * "latest N per series" is `GROUP BY <tags> ORDER BY time DESC LIMIT N`
 * (LIMIT applies per series), windows are time conditions (time is the
 * iteration). Two quirks of InfluxDB 1.x shape the helpers: OR between time
 * conditions silently returns nothing, so windows of different series are
 * separate statements sent together; and a condition on a field excludes
 * rows where that field is absent (used on purpose: `"u" =~ /.*\/` keeps
 * only images with a url).
 */
import {
  decodeTagValue,
  encodeTagValue,
  influxQlString,
  iterFromTime,
  iterTimeText,
  NO_ITER_TIME_TEXT,
  type Measurement,
} from '../../../shared/events/storage-layout.js';
import type { MetricFilter } from '../common/metric-variants.js';
import type { InfluxResult, InfluxSeries, InfluxStore } from '../../../shared/stores/influx-store.js';
import { decodeInfluxRows, type SequencedEvent } from './stored-events.js';
import type { Namespace } from './entity-access.js';

/** Statements per HTTP request: keeps bodies moderate when one page needs a window per series. */
const STATEMENTS_PER_REQUEST = 200;

/** A condition no row satisfies (an empty selection); InfluxQL reads `false` as such. */
export const NOTHING = 'false';

export const HAS_ITER = `time > ${NO_ITER_TIME_TEXT}`;
/** Rows of images that have a url (the condition drops rows where the field is absent). */
export const HAS_URL = '"u" =~ /.*/';

const tagEquals = (tag: string, value: string): string => `"${tag}" = ${influxQlString(encodeTagValue(value))}`;
const anyOf = (parts: string[]): string => (parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`);

/** Company, namespace and one or more entities. */
export function scopeCondition(company: string, namespace: Namespace, entities: readonly string[]): string {
  return `${tagEquals('c', company)} AND "n" = '${namespace}' AND ${anyOf(entities.map((e) => tagEquals('e', e)))}`;
}

/** A metric with its variants (undefined or null: every variant). */
export interface MetricVariantSelection {
  readonly metric: string;
  readonly variants?: readonly string[] | null;
}

/** The condition selecting these metrics/variants; undefined selects everything; an empty list selects nothing. */
export function metricsCondition(selections: readonly MetricVariantSelection[] | undefined): string | undefined {
  if (selections === undefined) return undefined;
  if (selections.length === 0) return NOTHING;
  return anyOf(
    selections.map(({ metric, variants }) =>
      variants && variants.length > 0
        ? `(${tagEquals('m', metric)} AND ${anyOf(variants.map((v) => tagEquals('v', v)))})`
        : tagEquals('m', metric),
    ),
  );
}

export function metricFilterCondition(filter: MetricFilter): string | undefined {
  return filter.isEmpty ? undefined : metricsCondition(filter.metrics);
}

export function seriesCondition(metric: string, variant?: string): string {
  return variant === undefined ? tagEquals('m', metric) : `${tagEquals('m', metric)} AND ${tagEquals('v', variant)}`;
}

export function iterTime(iter: number): string {
  return iterTimeText(iter);
}

export function where(...conditions: Array<string | undefined | false>): string {
  const parts = conditions.filter((c): c is string => typeof c === 'string' && c !== '');
  return parts.includes(NOTHING) ? NOTHING : parts.join(' AND ');
}

/** Runs statements, several per request, and answers one result per statement, in order. */
export async function runStatements(influx: InfluxStore, statements: readonly string[]): Promise<InfluxResult[]> {
  const results: InfluxResult[] = [];
  for (let start = 0; start < statements.length; start += STATEMENTS_PER_REQUEST) {
    const chunk = statements.slice(start, start + STATEMENTS_PER_REQUEST);
    const answers = await influx.query(chunk.join('; '), { method: 'POST' });
    chunk.forEach((_, k) => results.push(answers.find((a) => a.statement_id === k) ?? { statement_id: start + k }));
  }
  return results;
}

export async function runStatement(influx: InfluxStore, statement: string): Promise<InfluxSeries[]> {
  return (await runStatements(influx, [statement]))[0]!.series ?? [];
}

/**
 * GROUP BY puts the grouped tags in `series.tags`, with "" for series that
 * lack the tag (an image without key). "" is never a stored tag value
 * (encodeTagValue turns it into `~`), so it means absent.
 */
function withoutEmptyTags(series: InfluxSeries): InfluxSeries {
  if (series.tags === undefined || !Object.values(series.tags).includes('')) return series;
  const tags = Object.fromEntries(Object.entries(series.tags).filter(([, v]) => v !== ''));
  return { ...series, tags };
}

/** Full events from `SELECT *` results. */
export function decodeEvents(series: readonly InfluxSeries[], measurement: Measurement): SequencedEvent[] {
  return series.flatMap((s) => decodeInfluxRows(withoutEmptyTags(s), measurement));
}

/** Where an event is, read from a narrow SELECT (time, grouped tags, maybe `u`). */
export interface EventPosition {
  readonly entity?: string;
  readonly metric: string;
  readonly variant: string;
  /** null: no iteration. */
  readonly iter: number | null;
  readonly url?: string;
  /** Other selected fields, by column name. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Positions from a narrow SELECT grouped by (some of) e, m, v, k; ungrouped tags missing from the row read as "". */
export function decodePositions(series: readonly InfluxSeries[]): EventPosition[] {
  const out: EventPosition[] = [];
  for (const s of series) {
    const tags = s.tags ?? {};
    const timeAt = s.columns.indexOf('time');
    const urlAt = s.columns.indexOf('u');
    for (const row of s.values) {
      const fields: Record<string, unknown> = {};
      s.columns.forEach((name, i) => (fields[name] = row[i]));
      const tag = (name: string) => (typeof fields[name] === 'string' ? (fields[name] as string) : tags[name]);
      const entity = tag('e');
      const url = urlAt >= 0 ? row[urlAt] : undefined;
      out.push({
        entity: entity === undefined ? undefined : decodeTagValue(entity),
        metric: decodeTagValue(tag('m') ?? ''),
        variant: decodeTagValue(tag('v') ?? ''),
        iter: iterFromTime(row[timeAt] as number) ?? null,
        url: typeof url === 'string' ? url : undefined,
        fields,
      });
    }
  }
  return out;
}

/**
 * The rows nearest the start (ORDER BY time DESC or ASC) of each (metric,
 * variant) group until `enough` holds for the group or the group has no
 * more rows: first `want` rows per group in one statement, then the groups
 * that came back full but not enough are re-read alone with a doubled
 * limit. Grouping by (m, v) rather than every series lets InfluxDB merge the
 * series of a group (image keys) instead of returning rows for each.
 */
export async function nearestPerVariant(
  influx: InfluxStore,
  query: {
    readonly select: string;
    readonly from: Measurement;
    readonly condition: string;
    readonly order: 'ASC' | 'DESC';
    readonly want: number;
  },
  enough: (rows: readonly EventPosition[]) => boolean,
): Promise<EventPosition[]> {
  const statement = (condition: string, limit: number) =>
    `SELECT ${query.select} FROM "${query.from}" WHERE ${condition} GROUP BY "m","v" ORDER BY time ${query.order} LIMIT ${limit}`;
  const rows = new Map<string, EventPosition[]>();
  let limit = query.want;
  let pending: Array<[string, string] | undefined> = [undefined];
  while (pending.length > 0) {
    const statements = pending.map((series) =>
      statement(series === undefined ? query.condition : where(query.condition, seriesCondition(...series)), limit),
    );
    for (const result of await runStatements(influx, statements)) {
      // A re-read returns a superset of what the group gave before: replace it.
      const fresh = new Map<string, EventPosition[]>();
      for (const p of decodePositions(result.series ?? [])) {
        const key = JSON.stringify([p.metric, p.variant]);
        const list = fresh.get(key);
        if (list === undefined) fresh.set(key, [p]);
        else list.push(p);
      }
      for (const [key, list] of fresh) rows.set(key, list);
    }
    const full = limit;
    pending = [...rows]
      .filter(([, list]) => list.length === full && !enough(list))
      .map(([key]) => JSON.parse(key) as [string, string]);
    limit *= 2;
  }
  return [...rows.values()].flat();
}
