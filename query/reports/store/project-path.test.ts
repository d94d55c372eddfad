import fc from 'fast-check';
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

/** The regex-based resolution this module had until 2026-12-02, kept as the reference. */
function referenceSegments(base: string): string[] {
  let name = base.replace(/^\/+|\/+$/g, '');
  if (name.split('/').at(-1) !== '.reports') name = `${name}/.reports`;
  return name
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment !== '');
}

const path = fc.string({ unit: fc.constantFrom('/', ' ', '\t', 'a', 'B', '.reports', '.', 'é'), maxLength: 30 });

describe('reports project names of generated paths', () => {
  it('are what the regex-based reference gives', () => {
    fc.assert(
      fc.property(path, (base) => {
        expect(reportsProjectSegments(base)).toEqual(referenceSegments(base));
      }),
      { numRuns: 3000 },
    );
  });

  it('with a limit: all of them up to the limit, else the first limit + 1', () => {
    fc.assert(
      fc.property(path, fc.nat({ max: 6 }), (base, limit) => {
        const all = referenceSegments(base);
        expect(reportsProjectSegments(base, limit)).toEqual(all.length <= limit ? all : all.slice(0, limit + 1));
      }),
      { numRuns: 3000 },
    );
  });

  it('a limit bounds the segments of a path of millions, whatever its length', () => {
    const huge = 'a/'.repeat(4_000_000);
    expect(reportsProjectSegments(huge, 10)).toEqual(Array.from({ length: 11 }, () => 'a'));
  });
});
