/**
 * Reads the records of a message payload (shared/events/wire-format.ts)
 * straight from its bytes. Record lengths count UTF-16 code units, so a
 * payload that is all ASCII (the common case, checked natively) maps lengths
 * to bytes directly; otherwise the bytes of non-ASCII records are walked.
 * Points are never decoded to strings; logs and summaries are parsed (one
 * per log line or per request, not per point).
 *
 * Two kinds of fault: a broken frame (unknown kind, bad length) leaves the
 * rest of the payload unreadable, so the whole message is refused
 * (MalformedMessage); a sound frame around a bad body refuses that record
 * alone (RecordTarget.malformed), and its siblings are read on.
 */
import { isAscii } from 'node:buffer';
import {
  arrivalSeq,
  expandCompact,
  expandPoint,
  frameRecord,
  type EntitySummary,
  type LogRecord,
} from '../../shared/events/wire-format.js';
import { MAX_RECORDS_PER_MESSAGE } from '../../shared/events/storage-layout.js';
import { checkLogBody, checkSummary } from './record-checks.js';

export class MalformedMessage extends Error {
  override readonly name = 'MalformedMessage';
}

/** Where an E record's two parts lie in the payload: the J records after it share them. */
export interface PointHeader {
  tagsStart: number;
  tagsEnd: number;
  fieldsStart: number;
  fieldsEnd: number;
}

export interface RecordTarget {
  /**
   * An I record, or with `header` a J record, or with `header` and a head (its H record's
   * body, src[headStart, headEnd)) a K record's rest after its head number: the J record
   * is the head's bytes, then these. false: the point is malformed.
   */
  point(
    src: Buffer,
    start: number,
    end: number,
    seq: number,
    index: number,
    header?: PointHeader,
    headStart?: number,
    headEnd?: number,
  ): boolean;
  log(record: LogRecord, seq: number, index: number): void;
  summary(summary: EntitySummary, seq: number, index: number): void;
  /** The record's frame is sound but its body is not what its kind needs. */
  malformed(index: number, detail: string): void;
}

const KIND_I = 0x49;
const KIND_L = 0x4c;
const KIND_R = 0x52;
const KIND_E = 0x45;
const KIND_J = 0x4a;
const KIND_H = 0x48;
const KIND_K = 0x4b;
const COLON = 0x3a;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const ZERO = 0x30;
/** Head numbers are at most 9 digits (a message holds fewer records than that). */
const MAX_HEAD_DIGITS = 9;

interface Frame {
  kind: number;
  /** where the frame (its kind byte) starts, where its body starts and ends */
  at: number;
  start: number;
  end: number;
}

function readFrame(src: Buffer, at: number, allAscii: boolean): Frame {
  const kind = src[at]!;
  if (
    kind !== KIND_I &&
    kind !== KIND_L &&
    kind !== KIND_R &&
    kind !== KIND_E &&
    kind !== KIND_J &&
    kind !== KIND_H &&
    kind !== KIND_K
  )
    throw new MalformedMessage(`unknown record kind at byte ${at}`);
  let p = at + 1;
  let units = 0;
  while (p < src.length && p - at <= 10 && src[p]! >= 0x30 && src[p]! <= 0x39) units = units * 10 + (src[p++]! - 0x30);
  if (p === at + 1 || src[p] !== COLON) throw new MalformedMessage(`malformed record length at byte ${at}`);
  const start = p + 1;
  const end = allAscii ? start + units : utf8End(src, start, units);
  if (end > src.length) throw new MalformedMessage(`record at byte ${at} runs past the payload`);
  return { kind, at, start, end };
}

export function scanRecords(src: Buffer, streamSeq: number, target: RecordTarget): void {
  const allAscii = isAscii(src);
  let at = 0;
  let index = 0;
  let header: PointHeader | undefined;
  // The heads since the last E record, as [start, end] pairs.
  const heads: number[] = [];
  while (at < src.length) {
    const { kind, start, end } = readFrame(src, at, allAscii);
    if (index >= MAX_RECORDS_PER_MESSAGE) throw new MalformedMessage(`more than ${MAX_RECORDS_PER_MESSAGE} records`);
    const seq = arrivalSeq(streamSeq, index);
    if (kind === KIND_I) {
      if (!target.point(src, start, end, seq, index)) target.malformed(index, 'point record has no time');
    } else if (kind === KIND_J) {
      if (header === undefined) target.malformed(index, 'J record without an E record before it');
      else if (!target.point(src, start, end, seq, index, header))
        target.malformed(index, 'J record has no time or no tag');
    } else if (kind === KIND_K) {
      const number = readHeadNumber(src, start, end);
      if (header === undefined) target.malformed(index, 'K record without an E record before it');
      else if (number < 0 || 2 * number >= heads.length)
        target.malformed(index, 'K record names no head defined before it');
      else if (!target.point(src, headRestStart, end, seq, index, header, heads[2 * number], heads[2 * number + 1]))
        target.malformed(index, 'K record has no time or no tag');
    } else if (kind === KIND_H) {
      heads.push(start, end);
    } else if (kind === KIND_E) {
      // Its J records refuse themselves when it is malformed: each is dead-lettered with its reason.
      header = readHeader(src, start, end);
      heads.length = 0;
    } else if (kind === KIND_L) {
      const checked = checkLogBody(src.toString('utf8', start, end));
      if (typeof checked === 'string') target.malformed(index, `log record: ${checked}`);
      else target.log(checked, seq, index);
    } else {
      const parsed = parseJson(src.toString('utf8', start, end));
      const checked = parsed === undefined ? 'not JSON' : checkSummary(parsed);
      if (typeof checked === 'string') target.malformed(index, `summary record: ${checked}`);
      else target.summary(checked, seq, index);
    }
    at = end;
    index++;
  }
}

/** Where the rest of the K record read last starts (after its head number and the space). */
let headRestStart = 0;

/** A K record's head number (the rest's start in headRestStart), or -1 when it has none. */
function readHeadNumber(src: Buffer, start: number, end: number): number {
  let p = start;
  let n = 0;
  while (p < end && p - start < MAX_HEAD_DIGITS && src[p]! >= ZERO && src[p]! <= ZERO + 9)
    n = n * 10 + (src[p++]! - ZERO);
  // No digit, a leading zero, too many digits, or no space after them.
  if (p === start || (src[start] === ZERO && p > start + 1) || p >= end || src[p] !== SPACE) return -1;
  headRestStart = p + 1;
  return n;
}

function readHeader(src: Buffer, start: number, end: number): PointHeader | undefined {
  const newline = src.indexOf(NEWLINE, start);
  if (newline < 0 || newline >= end) return undefined;
  return { tagsStart: start, tagsEnd: newline, fieldsStart: newline + 1, fieldsEnd: end };
}

/**
 * The bytes of record `index` with its frame (`<kind><length>:<body>`): what a dead letter
 * carries. A J or K record is carried as the I record it stands for, so that the letter holds
 * the whole point on its own.
 */
export function recordFrame(src: Buffer, index: number): Buffer {
  const allAscii = isAscii(src);
  const text = (frame: Frame) => src.toString('utf8', frame.start, frame.end);
  let at = 0;
  let header: Frame | undefined;
  let heads: string[] = [];
  for (let i = 0; at < src.length; i++) {
    const frame = readFrame(src, at, allAscii);
    if (frame.kind === KIND_E) {
      header = frame;
      heads = [];
    } else if (frame.kind === KIND_H) heads.push(text(frame));
    if (i === index) {
      if (frame.kind !== KIND_J && frame.kind !== KIND_K) return src.subarray(frame.at, frame.end);
      const compact = frame.kind === KIND_J ? text(frame) : expandCompact(heads, text(frame));
      const point = header === undefined || compact === undefined ? undefined : expandPoint(text(header), compact);
      // A J or K record that stands for no point (its E record or head is missing or malformed) is carried as it is.
      return point === undefined ? src.subarray(frame.at, frame.end) : Buffer.from(frameRecord('I', point), 'utf8');
    }
    at = frame.end;
  }
  throw new RangeError(`no record ${index} in the payload`);
}

/** The byte offset after `units` UTF-16 code units of UTF-8 starting at `start`. */
function utf8End(src: Buffer, start: number, units: number): number {
  const asciiEnd = start + units;
  if (asciiEnd <= src.length && isAscii(src.subarray(start, asciiEnd))) return asciiEnd;
  let at = start;
  let counted = 0;
  while (counted < units) {
    const lead = src[at];
    if (lead === undefined) throw new MalformedMessage('record runs past the payload');
    if (lead < 0x80) {
      at += 1;
      counted += 1;
    } else if (lead >= 0xc0 && lead < 0xe0) {
      at += 2;
      counted += 1;
    } else if (lead >= 0xe0 && lead < 0xf0) {
      at += 3;
      counted += 1;
    } else if (lead >= 0xf0 && lead < 0xf8) {
      at += 4;
      counted += 2;
    } else {
      throw new MalformedMessage(`invalid UTF-8 at byte ${at}`);
    }
  }
  if (counted !== units) throw new MalformedMessage('record length splits a character');
  return at;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
