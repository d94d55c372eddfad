/**
 * Range reads of a log stream segment, with the entries kept as the bytes
 * Redis sent (node-redis hands out views of its socket chunks): log pages
 * are answered by copying those bytes, so decoding each entry into a string
 * first would only add work. Text is made on demand (filters, downloads).
 */
import { RESP_TYPES } from 'redis';
import { sendKeyedCommand, type RedisClient } from '../../../shared/stores/redis-store.js';

const AS_BYTES = { [RESP_TYPES.BLOB_STRING]: Buffer } as const;
const EMPTY_OBJECT = Buffer.from('{}');
const DASH = 0x2d;
const ZERO = 0x30;

/** One stream entry: id `<ms>-<seq>`, field `d` the stored event JSON without `type` and `task`. */
export class LogEntry {
  readonly ms: number;
  readonly seq: number;

  constructor(
    private readonly idBytes: Buffer,
    /** The stored event JSON as UTF-8 bytes (an object, never empty). */
    readonly data: Buffer,
  ) {
    let ms = 0;
    let i = 0;
    for (; i < idBytes.length && idBytes[i] !== DASH; i++) ms = ms * 10 + idBytes[i]! - ZERO;
    let seq = 0;
    for (i++; i < idBytes.length; i++) seq = seq * 10 + idBytes[i]! - ZERO;
    this.ms = ms;
    this.seq = seq;
  }

  get id(): string {
    return this.idBytes.toString('latin1');
  }

  get json(): string {
    return this.data.toString('utf8');
  }
}

export type RangeDirection = 'asc' | 'desc';

type RawEntry = [id: Buffer, fields: Buffer[] | null];

/**
 * At most `count` entries from `from` towards `to` (XRANGE bounds for asc,
 * XREVRANGE bounds for desc: `from` is the end for desc).
 */
export async function readLogRange(
  redis: RedisClient,
  key: string,
  direction: RangeDirection,
  from: string,
  to: string,
  count: number,
): Promise<LogEntry[]> {
  const raw = await sendKeyedCommand<RawEntry[]>(
    redis,
    key,
    true,
    [direction === 'asc' ? 'XRANGE' : 'XREVRANGE', key, from, to, 'COUNT', String(count)],
    { typeMapping: AS_BYTES },
  );
  const entries = new Array<LogEntry>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const [id, fields] = raw[i]!;
    entries[i] = new LogEntry(id, dataField(fields));
  }
  return entries;
}

function dataField(fields: Buffer[] | null): Buffer {
  if (fields !== null)
    for (let f = 0; f + 1 < fields.length; f += 2)
      if (fields[f]!.length === 1 && fields[f]![0] === 0x64 /* d */) return fields[f + 1]!;
  return EMPTY_OBJECT;
}
