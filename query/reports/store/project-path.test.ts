import { describe, expect, it } from 'vitest';
import { codePointLength, prefixNames, reportsProjectSegments } from './project-path.js';

describe('reports project names (reports.md §1.3 steps 1-2)', () => {
  it.each([
    ['', ['.reports']],
    ['/', ['.reports']],
    ['Team A', ['Team A', '.reports']],
    ['X/.reports', ['X', '.reports']],
    ['/A/B/', ['A', 'B', '.reports']],
    [' A / B /.reports', ['A', 'B', '.reports']],
    ['A//  /B', ['A', 'B', '.reports']],
  ])('%j', (base, segments) => {
    expect(reportsProjectSegments(base)).toEqual(segments);
  });

  it('lists every prefix, root first', () => {
    expect(prefixNames(['A', 'B', '.reports'])).toEqual(['A', 'A/B', 'A/B/.reports']);
  });

  it('counts code points', () => {
    expect(codePointLength('😀a')).toBe(2);
  });
});
