// The sizes of gRPC messages as their prefixes arrive, however the bytes are cut into chunks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MessagePrefixes } from './message-prefixes.js';

function framed(lengths: number[]): Buffer {
  return Buffer.concat(
    lengths.map((length, i) => {
      const prefix = Buffer.alloc(5);
      prefix[0] = i % 2;
      prefix.writeUInt32BE(length, 1);
      return Buffer.concat([prefix, Buffer.alloc(length, 0xff)]);
    }),
  );
}

describe('MessagePrefixes', () => {
  it('reports each message once, in order, in the chunk where its prefix completes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constant(0), fc.nat(40), fc.integer({ min: 250, max: 70_000 })), { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 9_000 }), { maxLength: 30 }),
        (lengths, cuts) => {
          const bytes = framed(lengths);
          const reader = new MessagePrefixes();
          const seen: Array<{ size: number; from: number; to: number }> = [];
          let at = 0;
          for (const cut of [...cuts, bytes.length]) {
            const to = Math.min(bytes.length, at + cut);
            for (const size of reader.sizesIn(bytes.subarray(at, to))) seen.push({ size, from: at, to });
            at = to;
            if (at === bytes.length) break;
          }
          expect(seen.map(({ size }) => size)).toEqual(lengths.map((length) => length + 5));
          // The chunk that reports a message is the one holding the last byte of its prefix.
          let start = 0;
          lengths.forEach((length, i) => {
            const prefixEnd = start + 5;
            expect(seen[i]!.from).toBeLessThan(prefixEnd);
            expect(seen[i]!.to).toBeGreaterThanOrEqual(prefixEnd);
            start += 5 + length;
          });
        },
      ),
    );
  });

  it('reads lengths beyond 2^31 as the unsigned numbers they are', () => {
    expect(new MessagePrefixes().sizesIn(Buffer.from([0, 0xff, 0xff, 0xff, 0xff]))).toEqual([2 ** 32 - 1 + 5]);
  });
});
