/**
 * events.scalar_metrics_iter_raw (events.md §4.3): every raw point of one
 * metric, paged by a signed cursor that carries the selection, the x
 * position, the first call's batch size and the total once counted.
 */
import { apiError } from '../../../shared/errors/error-catalogue.js';
import { defineOperation, JsonText } from '../../../shared/protocol/operation.js';
import { bool, int, requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import { decodeCursor, encodeCursor, invalidScrollIdError } from '../common/scroll-cursor.js';
import { metricVariantsField, scalarKeyField, type ScalarKey } from '../common/event-read-fields.js';
import { plainMap } from './plain-map.js';
import { countSelection, iterPage, timestampPage, type RawSelection } from '../store/scalar-raw-pages.js';
import { seriesOfPage, seriesOfPoints, type RawSeries } from './raw-point-order.js';
import { namespaceOf, type Namespace } from '../store/entity-access.js';
import { InfluxCsvReader } from '../store/influx-csv.js';
import { numberJson } from '../store/csv-number-text.js';
import { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { readableListings } from '../metrics/readable-listings.js';

export const RAW_DEFAULT_BATCH = 10_000;
export const RAW_MAX_BATCH = 200_000;
const PURPOSE = 'events.scalar_metrics_iter_raw';

/** What the cursor carries (short keys: it travels on every call). */
interface RawCursor {
  e: string;
  n: Namespace;
  m: string;
  vs: string[] | null;
  k: ScalarKey;
  /** x of the last point returned; null before the first point */
  p: number | null;
  /** the first call's batch size */
  bs: number;
  tot: number | null;
}

function isRawCursor(value: Record<string, unknown> | undefined): value is Record<string, unknown> & RawCursor {
  return (
    value !== undefined &&
    typeof value.e === 'string' &&
    (value.n === 't' || value.n === 'm') &&
    typeof value.m === 'string' &&
    (value.vs === null || (Array.isArray(value.vs) && value.vs.every((v) => typeof v === 'string'))) &&
    (value.k === 'iter' || value.k === 'timestamp' || value.k === 'iso_time') &&
    (value.p === null || typeof value.p === 'number') &&
    typeof value.bs === 'number' &&
    (value.tot === null || typeof value.tot === 'number')
  );
}

export function scalarMetricsIterRawOperation(deps: QueryDeps) {
  const csv = new InfluxCsvReader(deps.config, deps.storeCalls);
  return defineOperation({
    name: 'events.scalar_metrics_iter_raw',
    minVersion: '2.16',
    request: requestSchema({
      task: str({ required: true }),
      metric: metricVariantsField({ required: true }),
      key: scalarKeyField(),
      batch_size: int(),
      count_total: bool({ default: false }),
      scroll_id: str(),
      model_events: bool({ default: false }),
    }),
    async handle(request, context) {
      if (request.batch_size !== undefined && request.batch_size < 0)
        throw apiError('validation_error', 'batch_size should be non negative number');
      const company = context.identity.company;
      let cursor: RawCursor;
      if (request.scroll_id !== undefined) {
        const decoded = decodeCursor(deps.signingSecret, company, request.scroll_id, PURPOSE);
        // Only the entity is compared: the stored selection wins over the request's (§4.3).
        if (!isRawCursor(decoded) || decoded.e !== request.task) throw invalidScrollIdError(request.scroll_id);
        cursor = decoded;
      } else {
        const variants = request.metric!.variants?.length ? [...new Set(request.metric!.variants)] : null;
        const bs = Math.min(request.batch_size || RAW_DEFAULT_BATCH, RAW_MAX_BATCH);
        cursor = {
          e: request.task,
          n: namespaceOf(request.model_events),
          m: request.metric!.metric,
          vs: variants,
          k: request.key,
          p: null,
          bs,
          tot: null,
        };
      }
      const [listing] = await readableListings(deps, company, cursor.n, [cursor.e], [cursor.e]);
      const batch = Math.min(request.batch_size || cursor.bs, RAW_MAX_BATCH);

      const listed = listing!
        .filter(
          (e) =>
            e.type === 'training_stats_scalar' &&
            e.metric === cursor.m &&
            (cursor.vs === null || cursor.vs.includes(e.variant)),
        )
        .map((e) => e.variant);
      const selection: RawSelection = {
        ref: { company, namespace: cursor.n, id: cursor.e },
        metric: cursor.m,
        variants: listed,
        filterVariants: cursor.vs !== null,
      };
      const byTimestamp = cursor.k !== 'iter';
      const [{ series, writeYs }, total] = await Promise.all([
        byTimestamp
          ? timestampPage(csv, selection, cursor.p, batch).then((points) => ({
              series: seriesOfPoints(points),
              writeYs: writeNumbers,
            }))
          : iterPage(csv, selection, cursor.p, batch).then(({ columns, values }) => ({
              series: seriesOfPage(columns),
              writeYs: (out: JsonBytesWriter, refs: readonly number[]) => values.write(out, refs),
            })),
        cursor.tot === null && request.count_total
          ? countSelection(deps.influx, selection, byTimestamp ? 'timestamp' : 'iter')
          : Promise.resolve(cursor.tot),
      ]);
      const returned = series.reduce((sum, s) => sum + s.x.length, 0);
      const lastX = series.reduce<number | null>(
        (max, s) => (max === null || s.x.at(-1)! > max ? s.x.at(-1)! : max),
        null,
      );
      const next: RawCursor = { ...cursor, p: lastX ?? cursor.p, tot: total };
      const out = new JsonBytesWriter(returned * 24 + 1024).text(
        `{"returned":${returned},"total":${JSON.stringify(total)},` +
          `"scroll_id":${JSON.stringify(encodeCursor(deps.signingSecret, company, next, PURPOSE))},"variants":`,
      );
      writeVariants(out, series, cursor.k, writeYs);
      return new JsonText(out.text('}'));
    },
  });
}

/**
 * `{variant: {y: [...], <key>: [...]}}`, written as bytes: a page of 200,000 points as objects
 * and JSON.stringify read and wrote every y again (store/raw-page-csv.ts). Variants in the order an
 * object holds them, as JSON.stringify of one would write them.
 */
function writeVariants(
  out: JsonBytesWriter,
  series: readonly RawSeries[],
  key: ScalarKey,
  writeYs: (out: JsonBytesWriter, ys: readonly number[]) => void,
): void {
  const byVariant = plainMap<RawSeries>();
  for (const s of series) byVariant[s.variant] = s;
  const xMember = `],${JSON.stringify(key)}:[`;
  let first = true;
  out.text('{');
  for (const variant of Object.keys(byVariant)) {
    const { x, y } = byVariant[variant]!;
    out.text(`${first ? '' : ','}${JSON.stringify(variant)}:{"y":[`);
    first = false;
    writeYs(out, y);
    out.text(xMember);
    writeNumbers(out, x);
    out.text(']}');
  }
  out.text('}');
}

function writeNumbers(out: JsonBytesWriter, values: readonly number[]): void {
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out.ascii(',');
    out.ascii(numberJson(values[i]!));
  }
}
