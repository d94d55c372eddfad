/**
 * Reads the records of a message payload (shared/events/wire-format.ts)
 * straight from its bytes. Record lengths count UTF-16 code units, so a
 * payload that is all ASCII (the common case, checked natively) maps lengths
 * to bytes directly; otherwise the bytes of non-ASCII records are walked.
 * Points are never decoded to strings; logs and summaries are parsed (one
 * per log line or per request, not per point).
 */
import { isAscii } from 'node:buffer';
import { arrivalSeq, type EntitySummary, type LogRecord } from '../../shared/events/wire-format.js';
import { MAX_RECORDS_PER_MESSAGE } from '../../shared/events/storage-layout.js';

export class MalformedMessage extends Error {
  override readonly name = 'MalformedMessage';
}

export interface RecordTarget {
  /** false: the point is malformed. */
  point(src: Buffer, start: number, end: number, seq: number): boolean;
  log(record: LogRecord, seq: number): void;
  summary(summary: EntitySummary, seq: number): void;
}

const KIND_I = 0x49;
const KIND_L = 0x4c;
const KIND_R = 0x52;
const COLON = 0x3a;

export function scanRecords(src: Buffer, streamSeq: number, target: RecordTarget): void {
  const allAscii = isAscii(src);
  let at = 0;
  let index = 0;
  while (at < src.length) {
    const kind = src[at]!;
    if (kind !== KIND_I && kind !== KIND_L && kind !== KIND_R) throw new MalformedMessage(`unknown record kind at byte ${at}`);
    let p = at + 1;
    let units = 0;
    while (p < src.length && p - at <= 10 && src[p]! >= 0x30 && src[p]! <= 0x39) units = units * 10 + (src[p++]! - 0x30);
    if (p === at + 1 || src[p] !== COLON) throw new MalformedMessage(`malformed record length at byte ${at}`);
    const start = p + 1;
    const end = allAscii ? start + units : utf8End(src, start, units);
    if (end > src.length) throw new MalformedMessage(`record at byte ${at} runs past the payload`);
    if (index >= MAX_RECORDS_PER_MESSAGE) throw new MalformedMessage(`more than ${MAX_RECORDS_PER_MESSAGE} records`);
    const seq = arrivalSeq(streamSeq, index);
    if (kind === KIND_I) {
      if (!target.point(src, start, end, seq)) throw new MalformedMessage(`point record ${index} has no time`);
    } else if (kind === KIND_L) {
      target.log(parseLogRecord(src.toString('utf8', start, end), index), seq);
    } else {
      target.summary(parseSummary(src.toString('utf8', start, end), index), seq);
    }
    at = end;
    index++;
  }
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

function parseJson(text: string, what: string, index: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedMessage(`${what} record ${index} is not JSON`);
  }
}

function parseLogRecord(text: string, index: number): LogRecord {
  const value = parseJson(text, 'log', index);
  if (!Array.isArray(value) || typeof value[1] !== 'string' || typeof value[2] !== 'number' || typeof value[3] !== 'string') {
    throw new MalformedMessage(`log record ${index} is not [company, task, timestamp, event JSON]`);
  }
  return value as LogRecord;
}

function parseSummary(text: string, index: number): EntitySummary {
  const value = parseJson(text, 'summary', index) as EntitySummary;
  if (
    value === null ||
    typeof value !== 'object' ||
    (value.n !== 't' && value.n !== 'm') ||
    typeof value.e !== 'string' ||
    typeof value.at !== 'number' ||
    !Array.isArray(value.scalars) ||
    !Array.isArray(value.listing)
  ) {
    throw new MalformedMessage(`summary record ${index} is not an entity summary`);
  }
  return value;
}
