/**
 * How many events a gRPC request message may carry for its size, counted
 * before protobuf-es builds them. An empty Event is 2 bytes on the wire and
 * about 150 bytes of heap and 0.85 µs once decoded: a 63 MiB AddBatch
 * message of them (33 million events) ran an ingest process out of its
 * ~4 GB heap after 72 s. At one event per 16 bytes a message costs at most
 * ~10 bytes of heap a byte while it is decoded (64 MiB: 4.2 million events,
 * ~630 MB, ~3.5 s), the order of what JSON text costs at its own bound
 * (shared/protocol/client-object.ts); honest events are 40 bytes or more
 * (a task id alone is 34).
 *
 * The count must be the number of events protobuf-es will decode, and
 * protobuf-es is lax: it reads a known field by its number whatever wire type
 * the record declares (a string field marked varint still takes a length and
 * that many bytes), and a field may run past the end of the event holding it,
 * after which it reads on from wherever that left it. Counting records by
 * their declared wire types could then see one event where protobuf-es
 * decodes millions. So the count walks the message the way protobuf-es's
 * decoder does (from-binary.ts of @bufbuild/protobuf 2): the same readers for
 * the same field numbers, the same loop bounds, unknown fields skipped with
 * the same recursion limits, and builds nothing. Where protobuf-es decodes a
 * message, the count is its number of events (a property test holds the two
 * together); where it would fail, the count may differ, and either answer is
 * a 400.
 */
import { ScalarType, type DescMessage } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { apiError } from '../../shared/errors/error-catalogue.js';
import { maxEventsForSize, tooManyEventsInBytesError } from '../events/event-density.js';
import { EventBatchSchema, EventChunkSchema, EventSchema } from './gen/clearml/events/v1/events_ingest_pb.js';

/** Shortest message that can hold more events than maxEventsForSize allows (an event takes two bytes). */
const SHORTEST_EVENT_BOMB = 2_286;

/** How protobuf-es reads a message's fields: the wire type of each known field, and which are packable lists. */
export interface MessageLayout {
  wireTypes: ReadonlyMap<number, WireType>;
  packable: ReadonlySet<number>;
}

const BIT64_SCALARS = new Set([ScalarType.DOUBLE, ScalarType.FIXED64, ScalarType.SFIXED64]);
const BIT32_SCALARS = new Set([ScalarType.FLOAT, ScalarType.FIXED32, ScalarType.SFIXED32]);

function scalarWireType(scalar: ScalarType): WireType {
  if (scalar === ScalarType.STRING || scalar === ScalarType.BYTES) return WireType.LengthDelimited;
  if (BIT64_SCALARS.has(scalar)) return WireType.Bit64;
  if (BIT32_SCALARS.has(scalar)) return WireType.Bit32;
  return WireType.Varint;
}

/**
 * The layout of a message of scalar fields and lists of scalars, from its
 * descriptor. Other kinds of field (messages, enums, maps) are read by
 * protobuf-es in ways this walk does not follow: it refuses to describe them.
 */
function layoutOf(schema: DescMessage): MessageLayout {
  const wireTypes = new Map<number, WireType>();
  const packable = new Set<number>();
  for (const field of schema.fields) {
    if (field.fieldKind === 'scalar') wireTypes.set(field.number, scalarWireType(field.scalar));
    else if (field.fieldKind === 'list' && field.listKind === 'scalar') {
      wireTypes.set(field.number, scalarWireType(field.scalar));
      if (field.scalar !== ScalarType.STRING && field.scalar !== ScalarType.BYTES) packable.add(field.number);
    } else throw new Error(`${schema.typeName}.${field.name}: no layout for a ${field.fieldKind} field`);
  }
  return { wireTypes, packable };
}

/** What a message's top level holds: its events, and the uint64 `id` field when there is one. */
export interface MessageCount {
  events: number;
  id: bigint;
}

/** A request message: which field holds the events, their layout, and which field is the uint64 id. */
export interface EventsMessage {
  eventsField: number;
  event: MessageLayout;
  idField?: number;
}

/**
 * Counts a message's events as protobuf-es will decode them. A message too
 * short to pass the bound is not read (undefined: protobuf-es decides about
 * it); a longer one that either reader refuses, or that is lax (above),
 * throws malformed_body. The walk ends at the first event beyond `stopAbove`.
 */
export function countMessageEvents(
  bytes: Uint8Array,
  message: EventsMessage,
  stopAbove = Infinity,
): MessageCount | undefined {
  if (bytes.length < SHORTEST_EVENT_BOMB) return undefined;
  try {
    return walkMessage(new BinaryReader(bytes), message, stopAbove);
  } catch (err) {
    throw apiError('malformed_body', undefined, undefined, { cause: err });
  }
}

/** Throws tooManyEventsInBytesError when a message holds more events than its size allows. */
export function assertEventsBounded(bytes: Uint8Array, message: EventsMessage): void {
  // A message with an id (a chunk) is read to its end, for the id its refusal names; a batch stops at the bound.
  const max = maxEventsForSize(bytes.length);
  const count = countMessageEvents(bytes, message, message.idField === undefined ? max : Infinity);
  if (count !== undefined && count.events > max) throw tooManyEventsInBytesError(bytes.length);
}

/** protobuf-es's recursion limit, less the depth of the message being read (1 for the request, 2 for an event). */
const RECURSION_LIMIT = 100;

function walkMessage(
  reader: BinaryReader,
  { eventsField, event, idField }: EventsMessage,
  stopAbove: number,
): MessageCount {
  const count: MessageCount = { events: 0, id: 0n };
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === eventsField) {
      const length = reader.uint32();
      walkEvent(reader, event, reader.pos + length);
      if (++count.events > stopAbove) return count;
    } else if (field === idField) count.id = BigInt(reader.uint64());
    else reader.skip(wireType, field, RECURSION_LIMIT - 1);
  }
  return count;
}

/** An event's records, read as protobuf-es reads them: to `end` or past it, by field number. */
function walkEvent(reader: BinaryReader, layout: MessageLayout, end: number): void {
  while (reader.pos < end) {
    const [field, wireType] = reader.tag();
    const own = layout.wireTypes.get(field);
    if (own === undefined) {
      reader.skip(wireType, field, RECURSION_LIMIT - 2);
      continue;
    }
    if (wireType === WireType.LengthDelimited && layout.packable.has(field)) {
      const packedEnd = reader.uint32() + reader.pos;
      while (reader.pos < packedEnd) skipOwn(reader, own);
    } else skipOwn(reader, own);
  }
}

/** One value of a known field, read by the field's own wire type whatever the record declared. */
function skipOwn(reader: BinaryReader, own: WireType): void {
  if (own === WireType.LengthDelimited) reader.bytes();
  else reader.skip(own);
}

const EVENT_LAYOUT = layoutOf(EventSchema);
export const EVENT_BATCH: EventsMessage = { eventsField: EventBatchSchema.field.events.number, event: EVENT_LAYOUT };
export const EVENT_CHUNK: EventsMessage = {
  eventsField: EventChunkSchema.field.events.number,
  event: EVENT_LAYOUT,
  idField: EventChunkSchema.field.chunkId.number,
};
