/**
 * A StreamEvents chunk read straight from its bytes into the raw events of
 * proto-event-decoder.ts, one at a time, without protobuf-es's message
 * objects: decoding a 10k-event chunk into those first (objects of 20 fields,
 * a bigint per iteration, an object per timestamp oneof), all alive until the
 * last event was checked, cost more CPU than checking the events, most of it
 * in the garbage collector (docs/performance.md).
 *
 * The result is protobuf-es's, whatever the bytes: a first pass checks that
 * the chunk is plain protobuf this reader knows exactly how protobuf-es
 * reads (known fields with their own wire types, everything in bounds,
 * strings of valid UTF-8); anything else (unknown fields, truncated or
 * overlong values, fields of the wrong wire type) goes through protobuf-es
 * itself, which decides between an event and malformed_body as it always
 * did. Only then are events handed out, so a malformed chunk adds none.
 * A plain scalar event the session's fused path takes from its bytes
 * (plain-scalar-event.ts) never becomes a raw event at all.
 */
import { protoInt64 } from '@bufbuild/protobuf';
import { getTextEncoding } from '@bufbuild/protobuf/wire';
import { isUtf8 } from 'node:buffer';
import type { IngestSession } from '../events/ingest-port.js';
import { decodeRequest } from './events-ingest-definition.js';
import { EventChunkSchema } from './gen/clearml/events/v1/events_ingest_pb.js';
import { maxEventsForSize, tooManyEventsInBytesError } from '../events/event-density.js';
import { countMessageEvents, EVENT_CHUNK } from './message-event-count.js';
import { decodeProtoEvent } from './proto-event-decoder.js';

type RawEvent = Record<string, unknown>;

export interface ChunkEvents {
  chunkId: bigint;
  /** Hands each event, in order, to `add` as the raw event decodeProtoEvent makes of it (absent fields may be present as undefined). */
  forEach(add: (raw: RawEvent) => void): void;
  /**
   * Adds the events to `session`, each offered to its fused path first when it has one
   * (addPlainScalarEvent). A chunk protobuf-es reads has no event bytes to offer.
   */
  addTo(session: IngestSession): void;
}

const VARINT = 0;
const BIT64 = 1;
const LENGTH_DELIMITED = 2;

/** Event's fields (events_ingest.proto): the wire type each must have, and the JSON name it becomes. */
const STRING_FIELDS: Record<number, string> = {
  1: 'type',
  2: 'task',
  4: 'metric',
  5: 'variant',
  9: 'timestamp',
  10: 'worker',
  11: 'msg',
  12: 'level',
  13: 'url',
  14: 'key',
  15: 'plot_str',
  17: 'model',
  19: 'x_axis_label',
};
const WIRE_TYPES = new Int8Array(22).fill(-1);
for (const field of Object.keys(STRING_FIELDS)) WIRE_TYPES[Number(field)] = LENGTH_DELIMITED;
for (const field of [3, 16, 18, 20, 21]) WIRE_TYPES[field] = VARINT;
for (const field of [6, 8]) WIRE_TYPES[field] = BIT64;
/** `values`: packed (length-delimited) or one double a record. */
const VALUES = 7;

const { decodeUtf8 } = getTextEncoding();

/** Why the first pass gave up: protobuf-es reads the chunk instead. */
class NotPlain extends Error {}
const NOT_PLAIN = new NotPlain();

export function readEventChunk(bytes: Buffer): ChunkEvents {
  const reader = new ChunkReader(bytes);
  try {
    reader.check();
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    const count = countMessageEvents(bytes, EVENT_CHUNK);
    if (count !== undefined && count.events > maxEventsForSize(bytes.length))
      return refused(count.id, tooManyEventsInBytesError(bytes.length));
    return viaProtobufEs(bytes);
  }
  // Checked events are handed out one at a time, but a chunk of two-byte empty events still costs
  // a microsecond each on one event loop.
  if (reader.events > maxEventsForSize(bytes.length))
    return refused(reader.chunkId, tooManyEventsInBytesError(bytes.length));
  return {
    chunkId: reader.chunkId,
    forEach: (add) => reader.forEach(add, undefined),
    addTo: (session) => reader.forEach((raw) => session.add(raw), session),
  };
}

/** A chunk refused whole: its id is known, adding its events throws `error` (acknowledged as the chunk's refusal). */
function refused(chunkId: bigint, error: Error): ChunkEvents {
  const fail = () => {
    throw error;
  };
  return { chunkId, forEach: fail, addTo: fail };
}

function viaProtobufEs(bytes: Buffer): ChunkEvents {
  const chunk = decodeRequest(EventChunkSchema, bytes);
  const forEach = (add: (raw: RawEvent) => void) => {
    for (const event of chunk.events) add(decodeProtoEvent(event));
  };
  return { chunkId: chunk.chunkId, forEach, addTo: (session) => forEach((raw) => session.add(raw)) };
}

/** Reads varints as protobuf-es's BinaryReader does (its varint64read), on bytes the first pass found in bounds. */
class ChunkReader {
  chunkId = protoInt64.uDec(0, 0);
  events = 0;
  private pos = 0;
  private lo = 0;
  private hi = 0;

  constructor(private readonly buf: Buffer) {}

  /** The first pass: throws NOT_PLAIN unless every record is one this reader reads as protobuf-es does. */
  check(): void {
    const { buf } = this;
    this.pos = 0;
    while (this.pos < buf.length) {
      const tag = this.checkedLength();
      if (tag === (1 << 3) + VARINT) {
        this.checkedVarint();
        this.chunkId = protoInt64.uDec(this.lo, this.hi);
      } else if (tag === (2 << 3) + LENGTH_DELIMITED) {
        this.events++;
        const length = this.checkedLength();
        this.checkEvent(this.pos + length);
      } else throw NOT_PLAIN;
    }
  }

  private checkEvent(end: number): void {
    const { buf } = this;
    if (end > buf.length) throw NOT_PLAIN;
    while (this.pos < end) {
      const tag = this.checkedLength();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === VALUES && (wireType === BIT64 || wireType === LENGTH_DELIMITED)) {
        const length = wireType === BIT64 ? 8 : this.checkedLength();
        if (length % 8 !== 0) throw NOT_PLAIN;
        this.skip(length, end);
      } else if (field >= WIRE_TYPES.length || WIRE_TYPES[field] !== wireType) throw NOT_PLAIN;
      else if (wireType === VARINT) this.checkedVarint();
      else if (wireType === BIT64) this.skip(8, end);
      else {
        const length = this.checkedLength();
        const start = this.pos;
        this.skip(length, end);
        for (let i = start; i < this.pos; i++) {
          if (buf[i]! > 0x7f) {
            // protobuf-es refuses invalid UTF-8 (proto3 strings are verified): it decides about such a chunk.
            if (!isUtf8(buf.subarray(start, this.pos))) throw NOT_PLAIN;
            break;
          }
        }
      }
      if (this.pos > end) throw NOT_PLAIN;
    }
  }

  private skip(length: number, end: number): void {
    if (this.pos + length > end) throw NOT_PLAIN;
    this.pos += length;
  }

  /** A tag or a length: a varint of at most 4 bytes (below 2^28), in bounds. */
  private checkedLength(): number {
    const { buf } = this;
    let value = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.pos >= buf.length) throw NOT_PLAIN;
      const b = buf[this.pos++]!;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw NOT_PLAIN;
  }

  /** A value varint: at most 10 bytes, in bounds. */
  private checkedVarint(): void {
    const { buf } = this;
    const start = this.pos;
    while (this.pos < buf.length && this.pos - start < 10) {
      if ((buf[this.pos++]! & 0x80) === 0) {
        this.pos = start;
        this.varint();
        return;
      }
    }
    throw NOT_PLAIN;
  }

  /** protobuf-es's varint64read. */
  private varint(): void {
    const { buf } = this;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      const b = buf[pos++]!;
      lo |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        this.finish(pos, lo, hi);
        return;
      }
    }
    const middle = buf[pos++]!;
    lo |= (middle & 0x0f) << 28;
    hi = (middle & 0x70) >> 4;
    if ((middle & 0x80) === 0) {
      this.finish(pos, lo, hi);
      return;
    }
    for (let shift = 3; shift <= 31; shift += 7) {
      const b = buf[pos++]!;
      hi |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        this.finish(pos, lo, hi);
        return;
      }
    }
    throw NOT_PLAIN;
  }

  private finish(pos: number, lo: number, hi: number): void {
    this.pos = pos;
    this.lo = lo;
    this.hi = hi;
  }

  /** A checked length varint (the first pass found it short and in bounds). */
  private length(): number {
    const { buf } = this;
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[this.pos++]!;
      value |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
  }

  /** The second pass, over a chunk the first one checked: each event to `fused`'s fused path when it takes it, else to `add`. */
  forEach(add: (raw: RawEvent) => void, fused: IngestSession | undefined): void {
    const { buf } = this;
    this.pos = 0;
    while (this.pos < buf.length) {
      if (this.length() === (1 << 3) + VARINT) this.varint();
      else {
        const end = this.length() + this.pos;
        // A method call on the session, not a closure made per chunk: this runs per event.
        if (fused?.addPlainScalarEvent?.(buf, this.pos, end) === true) this.pos = end;
        else add(this.event(end));
      }
    }
  }

  private event(end: number): RawEvent {
    const { buf } = this;
    // Every property present from the start: one object shape for every event.
    const raw: RawEvent = {
      type: undefined,
      task: undefined,
      model: undefined,
      model_event: undefined,
      allow_locked: undefined,
      metric: undefined,
      variant: undefined,
      worker: undefined,
      value: undefined,
      x_axis_label: undefined,
      url: undefined,
      key: undefined,
      plot_str: undefined,
      skip_validation: undefined,
      level: undefined,
      msg: undefined,
      iter: undefined,
      timestamp: undefined,
      values: undefined,
    };
    let values: number[] | undefined;
    let valuesPresent = false;
    while (this.pos < end) {
      const tag = this.length();
      const field = tag >>> 3;
      switch (field) {
        case 3: {
          this.varint();
          // sint64: zigzag, then the nearest double, as Number(bigint) makes it: hi * 2^32 is exact, the sum rounds once.
          const sign = -(this.lo & 1);
          const lo = ((this.lo >>> 1) | ((this.hi & 1) << 31)) ^ sign;
          const hi = (this.hi >>> 1) ^ sign;
          raw.iter = hi * 0x100000000 + (lo >>> 0);
          break;
        }
        case 6:
          raw.value = buf.readDoubleLE(this.pos);
          this.pos += 8;
          break;
        case 8:
          raw.timestamp = buf.readDoubleLE(this.pos);
          this.pos += 8;
          break;
        case VALUES: {
          values ??= [];
          const length = (tag & 7) === BIT64 ? 8 : this.length();
          for (const stop = this.pos + length; this.pos < stop; this.pos += 8) values.push(buf.readDoubleLE(this.pos));
          break;
        }
        case 16:
          raw.model_event = this.bool();
          break;
        case 18:
          raw.allow_locked = this.bool();
          break;
        case 20:
          raw.skip_validation = this.bool();
          break;
        case 21:
          valuesPresent = this.bool();
          break;
        default:
          raw[STRING_FIELDS[field]!] = this.string();
      }
    }
    // As decodeProtoEvent: an empty list is sent only when `values_present` says it was meant.
    if ((values !== undefined && values.length > 0) || valuesPresent) raw.values = values ?? [];
    return raw;
  }

  /** protobuf-es's bool(). */
  private bool(): boolean {
    const b = this.buf[this.pos]!;
    if (b < 0x80) {
      this.pos++;
      return b !== 0;
    }
    this.varint();
    return this.lo !== 0 || this.hi !== 0;
  }

  private string(): string {
    const { buf } = this;
    const length = this.length();
    const start = this.pos;
    this.pos += length;
    for (let i = start; i < this.pos; i++) {
      if (buf[i]! > 0x7f) return decodeUtf8(buf.subarray(start, this.pos), true);
    }
    return buf.toString('latin1', start, this.pos);
  }
}
