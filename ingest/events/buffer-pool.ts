/**
 * Message buffers of finished requests, kept for the next ones. Every
 * request used to allocate its entities' buffers afresh (1 KiB doubling up
 * to a message), and the finished ones stayed in memory until a full garbage
 * collection, which busy ingest processes run rarely: after two load phases
 * of the benchmark an idle process still held ~115 MB of such external
 * memory. A buffer is given back only when nothing else can read it any
 * more (its request published and every PubAck came, or nothing was
 * published): nats.js keeps a reference to what it has not yet sent.
 */
/** Smaller buffers come from Node's shared slab: cheap, and keeping one would keep its whole slab. */
const MIN_POOLED = 4096;

export class BufferPool {
  private readonly free = new Map<number, Buffer[]>();
  private kept = 0;

  constructor(
    /** Bytes kept at most; beyond it buffers are left to the garbage collector. */
    private readonly limit: number,
  ) {}

  /** A buffer of `size` bytes (a power of two), used before when one is free. */
  take(size: number): Buffer {
    if (size < MIN_POOLED) return Buffer.allocUnsafe(size);
    const buffer = this.free.get(size)?.pop();
    if (buffer === undefined) return Buffer.allocUnsafe(size);
    this.kept -= size;
    return buffer;
  }

  give(buffer: Buffer): void {
    const size = buffer.length;
    // Only whole buffers of the sizes handed out (powers of two), never views of other memory.
    if (size < MIN_POOLED || (size & (size - 1)) !== 0 || buffer.byteOffset !== 0 || this.kept + size > this.limit)
      return;
    let list = this.free.get(size);
    if (list === undefined) this.free.set(size, (list = []));
    list.push(buffer);
    this.kept += size;
  }

  get retained(): number {
    return this.kept;
  }
}
