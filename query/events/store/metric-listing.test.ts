import { describe, expect, it } from 'vitest';
import { parseListing } from './metric-listing.js';

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
});
