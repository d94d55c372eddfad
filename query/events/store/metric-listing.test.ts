import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseListing, type ListingEntry } from './metric-listing.js';

const member = (...parts: string[]) => parts.join('\u001f');

describe('parseListing', () => {
  it('parses members and merges the two flags of one series', () => {
    const entries = parseListing([
      member('training_stats_scalar', 'loss', 'train', '0'),
      member('training_stats_scalar', 'loss', 'train', '1'),
      member('log', '', '', '0'),
      member('plot', 'a\nb', '', '0'),
      'malformed',
    ]);
    expect(entries).toEqual([
      { type: 'training_stats_scalar', metric: 'loss', variant: 'train', regular: true },
      { type: 'log', metric: '', variant: '', regular: false },
      { type: 'plot', metric: 'a\nb', variant: '', regular: false },
    ]);
  });

  it('reads any member as the split of its four parts does (the format of the writer, events.md §3)', () => {
    // The definition: exactly four parts; a series is its first three; flag "1" on either member makes it regular.
    const bySplit = (members: string[]): ListingEntry[] => {
      const byKey = new Map<string, ListingEntry>();
      for (const m of members) {
        const parts = m.split('\u001f');
        if (parts.length !== 4) continue;
        const [type, metric, variant, flag] = parts as [string, string, string, string];
        const key = JSON.stringify([type, metric, variant]);
        byKey.set(key, { type, metric, variant, regular: flag === '1' || (byKey.get(key)?.regular ?? false) });
      }
      return [...byKey.values()];
    };
    const part = fc.oneof(
      fc.constantFrom('', '0', '1', '11', 'loss', '\u001f', '1\u001f', '\ud83d\ude00', 'a\nb'),
      fc.string({ maxLength: 6, unit: fc.constantFrom('a', '1', '0', '\u001f', ' ', 'é') }),
    );
    const members = fc.array(
      fc.oneof(
        fc.array(part, { minLength: 0, maxLength: 6 }).map((parts) => parts.join('\u001f')),
        fc
          .tuple(
            fc.constantFrom('t', 'plot'),
            fc.constantFrom('m', ''),
            fc.constantFrom('v', 'w'),
            fc.constantFrom('0', '1', '', '2'),
          )
          .map((parts) => parts.join('\u001f')),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(members, (m) => {
        expect(parseListing(m)).toEqual(bySplit(m));
      }),
      { numRuns: 2000 },
    );
  });
});
