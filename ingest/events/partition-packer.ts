/**
 * A request's messages, one or more per entity (record-sink.ts), packed
 * into fewer messages per partition: the messages of a partition's entities
 * are concatenated, in the request's order, up to a message's size.
 *
 * An SDK batch of 10,000 scalars over 20 tasks made 21 messages of ~40 KB;
 * nats-server pays ~0.1 ms a message besides its bytes, and every message
 * costs both nats.js ends and the writer an acknowledgement (docs/
 * performance.md). Records need no change to share a message: each L and R
 * record names its entity, and an E record starts each entity's points. A
 * partition's messages keep their order, so each entity's records do.
 *
 * Packing depends on sizes and record counts only, so a re-sent request is
 * packed the same way and its messages get the same ids.
 */
import { MAX_RECORDS_PER_MESSAGE } from '../../shared/events/storage-layout.js';
import type { BufferPool } from './buffer-pool.js';
import type { SinkMessage } from './record-sink.js';

export interface EntityMessage extends SinkMessage {
  partition: number;
}

export interface PackedMessage extends SinkMessage {
  partition: number;
  /** Its place among the request's messages of its partition. */
  n: number;
}

interface Pack {
  parts: EntityMessage[];
  size: number;
  records: number;
}

/**
 * Messages from this size on go out alone. Joining copies bytes and holds the copy until the
 * PubAck; a message this large already spreads its per-message cost over its bytes (nats-server:
 * ~0.1 ms a message against ~0.35 ms of bytes), and the copies made the memory benchmark's
 * 15 MiB requests (entity messages of ~300 KB) peak ~20 MB higher.
 */
export const JOIN_BELOW = 128 * 1024;

/** Packs each partition's messages smaller than JOIN_BELOW, in order, into messages of at most `target` bytes. */
export function packByPartition(messages: EntityMessage[], target: number, buffers?: BufferPool): PackedMessage[] {
  const byPartition = new Map<number, Pack[]>();
  for (const message of messages) {
    let packs = byPartition.get(message.partition);
    if (packs === undefined) byPartition.set(message.partition, (packs = []));
    let pack = packs[packs.length - 1];
    if (
      pack === undefined ||
      pack.parts[0]!.size >= JOIN_BELOW ||
      message.size >= JOIN_BELOW ||
      pack.size + message.size > target ||
      pack.records + message.records > MAX_RECORDS_PER_MESSAGE
    )
      packs.push((pack = { parts: [], size: 0, records: 0 }));
    pack.parts.push(message);
    pack.size += message.size;
    pack.records += message.records;
  }
  const packed: PackedMessage[] = [];
  for (const [partition, packs] of byPartition)
    packs.forEach((pack, n) =>
      packed.push(pack.parts.length === 1 ? { ...pack.parts[0]!, n } : joined(partition, n, pack, buffers)),
    );
  return packed;
}

/** One message of several: its payload is put together when its turn to be published comes, and given back once acknowledged. */
function joined(partition: number, n: number, { parts, size, records }: Pack, buffers?: BufferPool): PackedMessage {
  let whole: Buffer | undefined;
  return {
    partition,
    n,
    size,
    records,
    payload: async () => {
      // A power of two: the pool takes it back once JetStream has the message.
      whole = buffers?.take(2 ** Math.ceil(Math.log2(size))) ?? Buffer.allocUnsafe(size);
      let at = 0;
      for (const part of parts) {
        const bytes = await part.payload();
        whole.set(bytes, at);
        at += bytes.byteLength;
        // Copied: nothing reads the part any more (a buffer it was read back into from disk is free).
        part.acknowledged();
      }
      return whole.subarray(0, size);
    },
    acknowledged: () => {
      if (whole !== undefined) buffers?.give(whole);
      whole = undefined;
    },
  };
}
