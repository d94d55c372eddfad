// A request's messages packed per partition (partition-packer.ts): the same records in the same
// order within each partition, fewer messages, none above the target size, a re-send packed alike.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BufferPool } from './buffer-pool.js';
import { JOIN_BELOW, packByPartition, type EntityMessage } from './partition-packer.js';

const TARGET = 4096;

function message(partition: number, text: string, records: number, log: string[] = []): EntityMessage {
  const bytes = Buffer.from(text);
  return {
    partition,
    size: bytes.length,
    records,
    // Spilled messages are read back asynchronously: both forms must be taken.
    payload: () => (records % 2 === 0 ? Promise.resolve(bytes) : bytes),
    acknowledged: () => log.push(`ack ${text.slice(0, 8)}`),
  };
}

const asText = async (payload: Uint8Array | Promise<Uint8Array>) => Buffer.from(await payload).toString();

describe('packByPartition', () => {
  it("keeps each partition's records in order, never exceeds the target, and packs the same input the same way", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 3000 }), fc.integer({ min: 1, max: 9 })),
          {
            maxLength: 40,
          },
        ),
        async (specs) => {
          const input = specs.map(([partition, length, records], i) =>
            message(partition, `${String(i).padStart(4, '0')}`.padEnd(length, 'x'), records),
          );
          const packed = packByPartition(input, TARGET);
          const again = packByPartition(input, TARGET);
          expect(again.map((m) => [m.partition, m.n, m.size, m.records])).toEqual(
            packed.map((m) => [m.partition, m.n, m.size, m.records]),
          );
          for (const partition of [0, 1, 2, 3]) {
            const mine = packed.filter((m) => m.partition === partition);
            expect(mine.map((m) => m.n)).toEqual(mine.map((_, n) => n));
            const expected = input.filter((m) => m.partition === partition);
            const texts = await Promise.all(mine.map((m) => asText(m.payload())));
            expect(texts.join('')).toBe((await Promise.all(expected.map((m) => asText(m.payload())))).join(''));
            expect(mine.reduce((sum, m) => sum + m.records, 0)).toBe(expected.reduce((sum, m) => sum + m.records, 0));
            for (const [i, m] of mine.entries()) {
              expect(m.size).toBe(Buffer.byteLength(texts[i]!));
              // Only a message alone may exceed the target (a record as large as a message).
              if (m.size > TARGET) expect(expected.some((e) => e.size === m.size)).toBe(true);
            }
            // Fewer messages: no two neighbours would have fitted in one.
            for (let i = 1; i < mine.length; i++) expect(mine[i - 1]!.size + mine[i]!.size).toBeGreaterThan(TARGET);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('frees each part once copied, and gives the joined buffer to the pool once acknowledged', async () => {
    const log: string[] = [];
    const pool = new BufferPool(1 << 20);
    const [joined] = packByPartition(
      [message(5, 'a'.repeat(3000), 1, log), message(5, 'b'.repeat(3000), 2, log)],
      8192,
      pool,
    );
    expect(joined!.records).toBe(3);
    expect(await asText(joined!.payload())).toBe('a'.repeat(3000) + 'b'.repeat(3000));
    expect(log).toEqual(['ack aaaaaaaa', 'ack bbbbbbbb']);
    expect(pool.retained).toBe(0);
    joined!.acknowledged();
    expect(pool.retained).toBe(8192);
  });

  it('joins no message of JOIN_BELOW bytes or more: the copy would cost memory and buy little', () => {
    const large = 'L'.repeat(JOIN_BELOW);
    const packed = packByPartition(
      [message(2, 'a', 1), message(2, large, 1), message(2, 'b', 1), message(2, 'c', 1)],
      4 * JOIN_BELOW,
    );
    expect(packed.map((m) => m.size)).toEqual([1, JOIN_BELOW, 2]);
  });

  it('passes a message that is alone in its pack through as it is', async () => {
    const log: string[] = [];
    const alone = message(1, 'only', 1, log);
    const [packed] = packByPartition([alone], TARGET);
    expect(packed!.payload()).toBe(alone.payload());
    packed!.acknowledged();
    expect(log).toEqual(['ack only']);
  });
});
