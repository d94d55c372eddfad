/**
 * Where events live (docs/storage.md explains the choice). InfluxDB holds
 * scalars, vectors, debug images and plots: one series per (company,
 * namespace, entity, metric, variant[, image key]), the point's time is the
 * iteration in nanoseconds, so re-reporting an iteration overwrites by
 * construction and GROUP BY time() buckets iterations. Redis holds log
 * streams, entity records, metric listings and navigation state.
 */
import { escape } from '@influxdata/influxdb-client';

export const MEASUREMENT = {
  training_stats_scalar: 'scalar',
  training_stats_vector: 'vector',
  training_debug_image: 'image',
  plot: 'plot',
} as const;

export type InfluxEventType = keyof typeof MEASUREMENT;
export type Measurement = (typeof MEASUREMENT)[InfluxEventType];

export const EVENT_TYPE_OF: Record<Measurement, InfluxEventType> = {
  scalar: 'training_stats_scalar',
  vector: 'training_stats_vector',
  image: 'training_debug_image',
  plot: 'plot',
};

/** Tag keys: company, namespace (t|m), entity id, metric, variant, image key, plot body bucket. */
export const TAG = {
  company: 'c',
  namespace: 'n',
  entity: 'e',
  metric: 'm',
  variant: 'v',
  key: 'k',
  bucket: 'b',
} as const;

/** Field keys shared by every measurement. */
export const FIELD = {
  /** scalar value (float) / vector values (JSON string) */
  value: 'y',
  /** event `timestamp`, epoch ms (integer) */
  timestamp: 'ts',
  /** `@timestamp`, the receive time, epoch ms (integer) */
  receivedAt: 'at',
  worker: 'w',
  /** arrival order: JetStream stream sequence × 65536 + record index (integer) */
  seq: 'q',
  url: 'u',
  /** plot_str in its stored form (see encodePlotString) */
  plot: 'p',
  plotLength: 'len',
  sourceUrls: 'src',
  validPlot: 'valid',
} as const;

/** Records per JetStream message are capped so that seq = streamSeq × 65536 + index stays unique. */
export const MAX_RECORDS_PER_MESSAGE = 65_536;

/**
 * The time of events without an iteration: InfluxDB's smallest valid time.
 * Iterations are clamped above it, so the sentinel never collides.
 */
export const NO_ITER_TIME_TEXT = '-9223372036854775806';
/**
 * Iterations beyond InfluxDB's time range are clamped to it (they have lost
 * precision anyway, events.md §0.6). The bounds are kept as text: as JS
 * numbers they would round to 2^63, outside the range.
 */
export const MAX_ITER_TIME_TEXT = '9223372036854775806';
export const MIN_ITER_TIME_TEXT = '-9223372036854775805';
/** ±(2^63 − 1024): the doubles nearest to the int64 bounds; only values beyond them need clamping. */
const LARGEST_EXACT_DOUBLE = 9_223_372_036_854_774_784;
/** Times below this (parsed as doubles) are the no-iteration sentinel. */
export const NO_ITER_THRESHOLD = -9.2e18;

const UNSAFE_TAG = /[\n\r\\\u0000-\u001f]|^~|^$/;

/**
 * Tag values must be non-empty and cannot hold newlines; ClearML names can.
 * Such values (and empty ones) are stored as `~` + base64url of their UTF-8;
 * everything else is stored as is, so names stay readable in InfluxDB.
 */
export function encodeTagValue(value: string): string {
  return UNSAFE_TAG.test(value) ? `~${Buffer.from(value, 'utf8').toString('base64url')}` : value;
}

export function decodeTagValue(stored: string): string {
  return stored.startsWith('~') ? Buffer.from(stored.slice(1), 'base64url').toString('utf8') : stored;
}

/**
 * The company tag of the writer's anchor series (ingest/writer/measurement-anchors.ts). No
 * company's stored value can equal it: encodeTagValue keeps values that do not start with `~`,
 * and follows `~` with base64url only, which has no `!`.
 */
export const ANCHOR_COMPANY = '~!anchor';

/**
 * Line-protocol escaping is the InfluxDB client library's (`escape.tag`,
 * `escape.quoted`). Its escapers look at every character even when there is
 * nothing to escape (6 to 15 times one regex test on such text, measured:
 * docs/storage.md), and most names, workers and URLs have nothing: one test
 * for the characters they change skips them.
 */
const TAG_ESCAPED = /[, =\n\r\t]/;
const QUOTED_ESCAPED = /["\\]/;

/** An (already encoded) tag value: commas, equals signs and spaces escaped. */
export function escapeTagValue(value: string): string {
  return TAG_ESCAPED.test(value) ? escape.tag(value) : value;
}

/** A string field: quoted, with `"` and `\` escaped (newlines are accepted raw by InfluxDB). */
export function quoteFieldString(value: string): string {
  return QUOTED_ESCAPED.test(value) ? escape.quoted(value) : `"${value}"`;
}

/** InfluxQL string literal for WHERE clauses. */
export function influxQlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** InfluxQL identifier (measurement, tag and field names are fixed and safe, but quote anyway). */
export function influxQlIdentifier(name: string): string {
  return `"${name.replace(/"/g, '\\"')}"`;
}

/** The point time of an event: its iteration (clamped to InfluxDB's range) or the sentinel. */
export function iterTimeText(iter: number | undefined): string {
  if (iter === undefined) return NO_ITER_TIME_TEXT;
  if (iter > LARGEST_EXACT_DOUBLE) return MAX_ITER_TIME_TEXT;
  if (iter < -LARGEST_EXACT_DOUBLE) return MIN_ITER_TIME_TEXT;
  return Number.isSafeInteger(iter) ? String(iter) : BigInt(iter).toString();
}

/** Back from a point time (JSON number, ns) to an iteration; undefined for the sentinel. */
export function iterFromTime(time: number): number | undefined {
  return time < NO_ITER_THRESHOLD ? undefined : time;
}

/**
 * Plot bodies (field `p`) live apart from the plot's other fields: in
 * `plot_body`, one series per PLOT_BODY_BUCKET iterations of a variant (tag
 * `b`), at the plot's time. InfluxDB decodes a whole TSM block (up to 1,000
 * points of a series field) to read one point, so a body read alone from the
 * variant's one series paid for up to 1,000 bodies; a bucket holds at most
 * 16. Not an event measurement: every plot event is its `plot` point, which
 * page selection, counts and listings read (docs/storage.md).
 */
export const PLOT_BODY_MEASUREMENT = 'plot_body';
export const PLOT_BODY_BUCKET = 16;
/** The bucket of the plot without an iteration. */
export const NO_ITER_BUCKET = 'none';

/**
 * The `b` tag of a plot body: its stored time (the clamped iteration)
 * divided by PLOT_BODY_BUCKET, rounded down. Computed from the stored time,
 * so that a reader holding only the time InfluxDB answered (a double, read
 * back with iterFromTime) finds the bucket the writer chose from the event's
 * iteration; iterations clamped to the smallest time read back as none, so
 * they share its bucket.
 */
export function plotBodyBucket(iter: number | undefined): string {
  if (iter === undefined || iter < NO_ITER_THRESHOLD) return NO_ITER_BUCKET;
  return String(Math.floor(Number(iterTimeText(iter)) / PLOT_BODY_BUCKET));
}

/**
 * Field of the entity hash the writer keeps at the greatest receive time
 * (epoch ms) of the entity's scalar events, so that reads need not scan
 * every point for it (get_task_latest_scalar_values' last_timestamp).
 */
export const LAST_SCALAR_AT_FIELD = 'last_scalar_at';

/**
 * Field of the entity hash the writer keeps at the greatest iteration of
 * the entity's InfluxDB events (every type but logs, ignored metrics and
 * single values included; "" while it has none), so that reads need not
 * open every series for it (get_task_latest_scalar_values' last_iter: an
 * image file is a series of its own). Absent when the writer does not know
 * it: the entity had events before the writer kept it (legacy data), or a
 * summary from an ingest that did not send it arrived.
 */
export const MAX_ITER_FIELD = 'max_iter';

/**
 * Field of the entity hash that names the state of its metric listing:
 * the writer sets it, in the script that adds members, to a new value of
 * its company's counter (redis-keys `listingVersions`) whenever a member is
 * added, and removes it with the listing when the entity's events are
 * deleted. Values are never reused within a company, so a reader that
 * holds a listing read together with this field (one MULTI) may answer
 * from it while the field still reads the same (query/events/store/
 * listing-cache.ts). Absent: no listing, or one written before the field
 * was kept; readers then read the listing.
 */
export const LISTING_VERSION_FIELD = 'listing_version';
