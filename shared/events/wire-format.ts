/**
 * The JetStream message format between ingest and writers.
 *
 * A message belongs to one subject partition and carries many records, so
 * that the per-message cost of NATS is paid once per hundreds of events.
 * Ingest does the expensive work once: it validates, normalises and formats
 * each InfluxDB point as line protocol; the writer only splices in the
 * arrival sequence and forwards bytes.
 *
 * Payload: UTF-8 text, a sequence of records, each `<kind><length>:<body>`
 * where length is the body's length in UTF-16 code units (JS string length):
 * length-prefixed because bodies (plots, log messages) may hold newlines.
 *
 *   I  an InfluxDB point without its `q` field: `<measurement,tags fields> <time>`
 *      (the writer inserts `,q=<seq>i` before the last space); a plot's is two
 *      lines, its body's `plot_body` point (no `q`) before its `plot` point
 *   E  what the J records after it share (version 2): the entity's tags
 *      `,c=..,e=..`, a newline, and the fields every event of the request from
 *      its default worker has, `,at=..i,w=".."`
 *   J  a scalar, vector or image point without what the last E record holds:
 *      `<measurement><other tags> <fields> <time>`; the writer stores
 *      `<measurement><E tags><other tags> <fields><E fields>,q=<seq>i <time>`.
 *      A message's events all share their entity, and in the SDK's batches
 *      their receive time and worker: the E/J pair carries those bytes once
 *      a message instead of once an event (~45% of a scalar's record), which
 *      nats-server, and nats.js on both sides, pay for by the byte
 *   H  (version 3) a series head: the bytes a J record of the series starts with up to its
 *      value, `<measurement><other tags> <first field>=` (`scalar,m=..,n=..,v=.. y=`).
 *      Heads are numbered 0, 1, ... in the order they appear after the last E record
 *   K  (version 3) a J record of a known series: `<head number> <rest>` stands for the J
 *      record `<head><rest>`. The SDK's scalar load repeats ~35 bytes of head in every
 *      J record of a series; a K record names it in 2 or 3 (46 bytes an event instead of 76)
 *   L  a log event for the task's Redis stream: `[company, task, timestamp]` as JSON,
 *      a newline, the stored event JSON (logRecordBody; LogRecord once read)
 *   R  the entity summary of one request (events.md §1.11): JSON EntitySummary
 *
 * Every I and L record has an arrival sequence: the JetStream stream
 * sequence × 65536 + the record's index in the message. It orders ties in
 * reads and makes redelivery idempotent.
 *
 * Control messages (deletions) carry a JSON ControlRecord in a message of
 * their own, with header `k: ctl`.
 */

import { MAX_RECORDS_PER_MESSAGE } from './storage-layout.js';
import type { VariantImageUses } from './image-index.js';

/** Version 2 added E and J records, version 3 H and K records; writers read every version. */
export const WIRE_VERSION = '3';
export const READABLE_WIRE_VERSIONS: ReadonlySet<string> = new Set(['1', '2', WIRE_VERSION]);
export const HEADER_KIND = 'k';
/** HEADER_KIND of a message of I/L/R records (ingest) and of a control message (query). */
export const KIND_EVENTS = 'ev';
export const KIND_CONTROL = 'ctl';
export const HEADER_VERSION = 'v';
/** Header of a control message: the subject its `{"deleted": n}` answer is published to. */
export const HEADER_REPLY = 'reply';

export type RecordKind = 'I' | 'L' | 'R' | 'E' | 'J' | 'H' | 'K';

/**
 * A log event as ingest hands it to the writer: `[company, task id,
 * timestamp (epoch ms), stored event JSON]`. The stored event (events.md
 * §1.4, without `type` and `task`) is already serialised, so the writer
 * forwards it without re-encoding.
 */
export type LogRecord = [company: string, task: string, timestamp: number, eventJson: string];

/**
 * The body of an L record: the header `[company, task, timestamp]` as JSON on
 * a line of its own (JSON text holds no raw newline), then the stored event
 * JSON as it is. Carrying the stored JSON inside a JSON string instead (the
 * form of versions before 2026-11-24, still read) escaped each of its quotes
 * a second time: more bytes to publish, and a second decoding in the writer.
 */
export function logRecordBody(company: string, task: string, timestamp: number, eventJson: string): string {
  return `${JSON.stringify([company, task, timestamp])}\n${eventJson}`;
}

/** Per scalar metric/variant statistics of one request (events.md §1.11). */
export interface ScalarStats {
  metric: string;
  variant: string;
  /** value of the event with the greatest (iter, timestamp) */
  value: number;
  iter: number | null;
  timestamp: number;
  min: number;
  minIter: number | null;
  max: number;
  maxIter: number | null;
  /** value at the request's lowest iteration, for first_value */
  first: number;
  firstIter: number | null;
  count: number;
  /** sum of the values, clamped to ±Number.MAX_VALUE (finite: JSON and Lua cannot carry Infinity) */
  sum: number;
  /**
   * mean of the values, computed without overflow (within [min, max]): what to
   * combine with the stored mean_value. Absent in summaries of older ingest
   * processes (messages still in the stream): sum / count then.
   */
  mean?: number;
  x_axis_label?: string;
}

/** What one request changes on an entity record; applied by the writer in stream order. */
export interface EntitySummary {
  /** company */
  c: string;
  /** namespace: t (task) or m (model) */
  n: 't' | 'm';
  /** entity id */
  e: string;
  /** user who wrote */
  u: string;
  /** receive time of the request, epoch ms (last_update, last_change) */
  at: number;
  /** largest iteration of the request's events (ignored metrics excluded), if any */
  lastIter?: number;
  /**
   * largest iteration of the request's InfluxDB events (every type but log;
   * ignored metrics and single values included), null when none has one.
   * Absent in summaries of older ingest processes: the writer then stops
   * keeping the entity's greatest iteration (storage-layout MAX_ITER_FIELD).
   */
  maxIter?: number | null;
  scalars: ScalarStats[];
  /** metric listing entries: [type, metric, variant, 1 if an event had an iteration > -2^31 else 0] */
  listing: Array<[string, string, string, 0 | 1]>;
  /**
   * What the request adds to the image index (image-index.ts), per variant
   * with images. Absent in summaries of older ingest processes: the writer
   * then stops keeping the entity's index.
   */
  images?: VariantImageUses[];
}

export type ControlRecord =
  | { op: 'delete_entity'; c: string; n: 't' | 'm'; e: string; id: string }
  | {
      op: 'clear_task_log';
      c: string;
      e: string;
      id: string;
      /** delete only log events with timestamp < this (epoch ms); absent: regardless of age */
      before?: number;
      include?: string[];
      exclude?: string[];
    };

/** Appends one record to a payload under construction. */
export function frameRecord(kind: RecordKind, body: string): string {
  return `${kind}${body.length}:${body}`;
}

export interface DecodedRecord {
  kind: RecordKind;
  body: string;
}

/** The body of an E record: the entity's tags and the fields its events share. */
export function headerRecordBody(tags: string, fields: string): string {
  return `${tags}\n${fields}`;
}

/** A J record's body as the I record body it stands for, given the E record body before it; undefined if either is malformed. */
export function expandPoint(header: string, body: string): string | undefined {
  const newline = header.indexOf('\n');
  const space = body.lastIndexOf(' ');
  const comma = body.search(/[, ]/);
  if (newline < 0 || comma < 0 || body[comma] !== ',' || space < comma) return undefined;
  return (
    body.slice(0, comma) +
    header.slice(0, newline) +
    body.slice(comma, space) +
    header.slice(newline + 1) +
    body.slice(space)
  );
}

/** A K record's body as the J record body it stands for, given the heads defined before it; undefined if malformed. */
export function expandCompact(heads: readonly string[], body: string): string | undefined {
  const space = body.indexOf(' ');
  if (space < 1 || !/^(0|[1-9][0-9]{0,8})$/.test(body.slice(0, space))) return undefined;
  const head = heads[Number(body.slice(0, space))];
  return head === undefined ? undefined : head + body.slice(space + 1);
}

/**
 * Splits a payload into its records, each J and K record as the I record it
 * stands for, E and H records left out. Throws on a malformed payload (a
 * poison message).
 */
export function* decodeRecords(payload: string): Generator<DecodedRecord> {
  let at = 0;
  let header: string | undefined;
  let heads: string[] = [];
  while (at < payload.length) {
    const kind = payload[at] as RecordKind;
    const colon = payload.indexOf(':', at + 1);
    if (!'ILREJHK'.includes(kind) || colon < 0) throw new Error(`malformed record at offset ${at}`);
    const length = Number(payload.slice(at + 1, colon));
    if (!Number.isInteger(length) || length < 0 || colon + 1 + length > payload.length)
      throw new Error(`malformed record length at offset ${at}`);
    const body = payload.slice(colon + 1, colon + 1 + length);
    if (kind === 'E') {
      header = body;
      heads = [];
    } else if (kind === 'H') {
      heads.push(body);
    } else if (kind === 'J' || kind === 'K') {
      const compact = kind === 'J' ? body : expandCompact(heads, body);
      const point = header === undefined || compact === undefined ? undefined : expandPoint(header, compact);
      if (point === undefined) throw new Error(`malformed ${kind} record at offset ${at}`);
      yield { kind: 'I', body: point };
    } else {
      yield { kind, body };
    }
    at = colon + 1 + length;
  }
}

/** The point line the writer stores: the record with its arrival sequence spliced in. */
export function pointWithSeq(body: string, seq: number): string {
  const space = body.lastIndexOf(' ');
  return `${body.slice(0, space)},q=${seq}i${body.slice(space)}`;
}

export function arrivalSeq(streamSeq: number, index: number): number {
  return streamSeq * MAX_RECORDS_PER_MESSAGE + index;
}

/** Subject of a partition, and the partition of an entity (stable hash: per-entity order holds within it). */
export function partitionSubject(prefix: string, partition: number): string {
  return `${prefix}.ev.${partition}`;
}

export function partitionOf(namespace: 't' | 'm', entity: string, partitions: number): number {
  // FNV-1a: cheap, stable across processes and versions.
  let hash = 0x811c9dc5;
  const key = `${namespace}:${entity}`;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

export function streamName(prefix: string): string {
  return `${prefix}_events`;
}

export function deadLetterSubject(prefix: string, partition: number): string {
  return `${prefix}.dead.${partition}`;
}

export function deadLetterStreamName(prefix: string): string {
  return `${prefix}_dead`;
}

export function consumerName(prefix: string, partition: number): string {
  return `${prefix}_writer_p${partition}`;
}
