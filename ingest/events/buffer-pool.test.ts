// The message buffers of finished requests are used again (docs/performance.md, ingest memory):
// what a request returns is handed out again instead of being left to the garbage collector,
// and the pool keeps no more than its bound.
import { describe, expect, it } from 'vitest';
import { BufferPool } from './buffer-pool.js';

describe('BufferPool', () => {
  it('hands out a returned buffer of the same size again', () => {
    const pool = new BufferPool(1 << 20);
    const a = pool.take(64 * 1024);
    expect(a.length).toBe(64 * 1024);
    pool.give(a);
    expect(pool.take(64 * 1024)).toBe(a);
    expect(pool.take(64 * 1024)).not.toBe(a);
  });

  it('keeps at most its bound', () => {
    const pool = new BufferPool(100 * 1024);
    const buffers = Array.from({ length: 4 }, () => pool.take(64 * 1024));
    buffers.forEach((b) => pool.give(b));
    expect(pool.retained).toBe(64 * 1024);
  });

  it('never keeps a buffer of a size it does not hand out (a large record of its own) nor a small one of the shared slab', () => {
    const pool = new BufferPool(1 << 20);
    pool.give(Buffer.alloc(1000));
    pool.give(Buffer.alloc(100_000));
    pool.give(Buffer.alloc(2048));
    expect(pool.retained).toBe(0);
  });
});
