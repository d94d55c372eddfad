/**
 * The shape a log or summary record must have before the writer builds
 * store calls from it. Ingest only ever sends well-formed records, but a
 * record that is not (another version, a hand-made message, a bug) must be
 * refused here, alone, rather than fail inside a store call where it would
 * look like a store error.
 */
import type { EntitySummary, LogRecord } from '../../shared/events/wire-format.js';

type Checked<T> = T | string;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optionalIter = (v: unknown) => v === undefined || v === null || finite(v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * An L record's body (wire-format.ts, logRecordBody): a header line
 * `[company, task, timestamp]` and the stored event JSON, taken as it is; a
 * body without a newline is the earlier form, one JSON array holding the
 * stored JSON as a string.
 */
export function checkLogBody(body: string): Checked<LogRecord> {
  const newline = body.indexOf('\n');
  if (newline < 0) {
    const value = parsed(body);
    return value === undefined ? 'not JSON' : checkLogRecord(value);
  }
  const header = parsed(body.slice(0, newline));
  if (!Array.isArray(header) || header.length !== 3) return 'header not [company, task, timestamp]';
  if (newline === body.length - 1) return 'no event JSON';
  return checkLogRecord([...header, body.slice(newline + 1)]);
}

function checkLogRecord(value: unknown): Checked<LogRecord> {
  if (
    !Array.isArray(value) ||
    value.length !== 4 ||
    typeof value[0] !== 'string' ||
    typeof value[1] !== 'string' ||
    typeof value[2] !== 'number' ||
    typeof value[3] !== 'string'
  ) {
    return 'not [company, task, timestamp, event JSON]';
  }
  return value as LogRecord;
}

const SCALAR_NUMBERS = ['value', 'timestamp', 'min', 'max', 'first'] as const;
const SCALAR_ITERS = ['iter', 'minIter', 'maxIter', 'firstIter'] as const;

function scalarProblem(s: unknown, i: number): string | undefined {
  if (!isObject(s)) return `scalar ${i} is not an object`;
  if (typeof s.metric !== 'string' || typeof s.variant !== 'string') return `scalar ${i} lacks metric or variant`;
  for (const name of SCALAR_NUMBERS) if (!finite(s[name])) return `scalar ${i} ${name} is not a finite number`;
  for (const name of SCALAR_ITERS) if (!optionalIter(s[name])) return `scalar ${i} ${name} is not an iteration`;
  if (!Number.isSafeInteger(s.count) || (s.count as number) < 1) return `scalar ${i} count is not a positive integer`;
  // null: the request's sum overflowed (JSON has no Infinity); `mean` then carries it.
  if (s.sum !== null && typeof s.sum !== 'number') return `scalar ${i} sum is not a number`;
  if (s.mean !== undefined && !finite(s.mean)) return `scalar ${i} mean is not a finite number`;
  if (s.x_axis_label !== undefined && typeof s.x_axis_label !== 'string')
    return `scalar ${i} x_axis_label is not a string`;
  return undefined;
}

function listingProblem(entry: unknown, i: number): string | undefined {
  if (
    !Array.isArray(entry) ||
    entry.length !== 4 ||
    typeof entry[0] !== 'string' ||
    typeof entry[1] !== 'string' ||
    typeof entry[2] !== 'string' ||
    (entry[3] !== 0 && entry[3] !== 1)
  ) {
    return `listing entry ${i} is not [type, metric, variant, 0|1]`;
  }
  return undefined;
}

const ITER_TEXT = /^-?[0-9]{1,19}$/;
const isIterText = (v: unknown): v is string => typeof v === 'string' && ITER_TEXT.test(v);
/** A key as stored (encodeTagValue): never a control character, which the index's script uses as separator. */
const isStoredKey = (v: unknown): v is string => typeof v === 'string' && !v.includes('\u001f');

function iterationProblem(it: unknown): boolean {
  return (
    !Array.isArray(it) ||
    it.length !== 2 ||
    !isIterText(it[0]) ||
    !Array.isArray(it[1]) ||
    !it[1].every((use) => Array.isArray(use) && use.length === 2 && isStoredKey(use[0]) && typeof use[1] === 'string')
  );
}

function urlUsesProblem(u: unknown): boolean {
  return (
    !Array.isArray(u) ||
    u.length !== 4 ||
    typeof u[0] !== 'string' ||
    !isIterText(u[1]) ||
    !isStoredKey(u[2]) ||
    (u[3] !== false && !isIterText(u[3]))
  );
}

/** An entry of a summary's `images` (shared/events/image-index.ts, VariantImageUses). */
function imagesProblem(entry: unknown, i: number): string | undefined {
  if (!isObject(entry) || typeof entry.m !== 'string' || typeof entry.v !== 'string')
    return `images entry ${i} lacks metric or variant`;
  if (!Array.isArray(entry.it) || entry.it.some(iterationProblem))
    return `images entry ${i} iterations are not [iteration, [[key, url]]]`;
  if (entry.b !== undefined && !isIterText(entry.b)) return `images entry ${i} b is not an iteration`;
  if (!Array.isArray(entry.u) || entry.u.some(urlUsesProblem))
    return `images entry ${i} urls are not [url, iteration, key, iteration or false]`;
  if (entry.o !== undefined && entry.o !== 1) return `images entry ${i} o is not 1`;
  return undefined;
}

export function checkSummary(value: unknown): Checked<EntitySummary> {
  if (!isObject(value)) return 'not an entity summary object';
  if (typeof value.c !== 'string' || (value.n !== 't' && value.n !== 'm') || typeof value.e !== 'string')
    return 'lacks company, namespace or entity';
  if (value.u !== undefined && typeof value.u !== 'string') return 'user is not a string';
  if (!finite(value.at)) return 'at is not a finite number';
  if (!optionalIter(value.lastIter)) return 'lastIter is not an iteration';
  if (!optionalIter(value.maxIter)) return 'maxIter is not an iteration';
  if (!Array.isArray(value.scalars) || !Array.isArray(value.listing)) return 'scalars or listing is not an array';
  for (let i = 0; i < value.scalars.length; i++) {
    const problem = scalarProblem(value.scalars[i], i);
    if (problem) return problem;
  }
  for (let i = 0; i < value.listing.length; i++) {
    const problem = listingProblem(value.listing[i], i);
    if (problem) return problem;
  }
  if (value.images !== undefined) {
    if (!Array.isArray(value.images)) return 'images is not an array';
    for (let i = 0; i < value.images.length; i++) {
      const problem = imagesProblem(value.images[i], i);
      if (problem) return problem;
    }
  }
  return value as unknown as EntitySummary;
}
