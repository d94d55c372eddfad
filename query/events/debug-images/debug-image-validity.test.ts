import { describe, expect, it } from 'vitest';
import { isImageShown, lastInvalidIteration, variantIterationRange, type ImageUse } from './debug-image-validity.js';

const cycling = (urls: number, iterations = 10): ImageUse[] =>
  Array.from({ length: iterations }, (_, iter) => ({ iter, url: `img_${iter % urls}.png` }));

describe('lastInvalidIteration (§8.1)', () => {
  it('variant A cycling 7 URLs over 0..9 is shown at 3..9', () => {
    const a = cycling(7);
    const invalid = lastInvalidIteration(a);
    expect(invalid).toBe(2);
    expect(a.filter((e) => isImageShown(e.iter, invalid)).map((e) => e.iter)).toEqual([3, 4, 5, 6, 7, 8, 9]);
  });

  it('variant B cycling 4 URLs over 0..9 is shown at 6..9', () => {
    const b = cycling(4);
    const invalid = lastInvalidIteration(b);
    expect(invalid).toBe(5);
    expect(b.filter((e) => isImageShown(e.iter, invalid)).map((e) => e.iter)).toEqual([6, 7, 8, 9]);
  });

  it('is none when the most recent URL was used once', () => {
    expect(
      lastInvalidIteration([
        { iter: 0, url: 'a' },
        { iter: 1, url: 'b' },
      ]),
    ).toBeUndefined();
    expect(lastInvalidIteration([])).toBeUndefined();
  });

  it('is the highest iteration when the URL occurs twice there (different keys)', () => {
    const events = [
      { iter: 3, url: 'a' },
      { iter: 3, url: 'a' },
      { iter: 1, url: 'a' },
      { iter: 2, url: 'b' },
    ];
    expect(lastInvalidIteration(events)).toBe(3);
  });

  it('breaks ties between URLs of the same greatest iteration by the smallest URL', () => {
    const events = [
      { iter: 5, url: 'b' },
      { iter: 1, url: 'b' },
      { iter: 5, url: 'a' },
      { iter: 2, url: 'a' },
    ];
    expect(lastInvalidIteration(events)).toBe(2);
    expect(lastInvalidIteration([...events].reverse())).toBe(2);
  });

  it('does not depend on the input order', () => {
    expect(lastInvalidIteration(cycling(4).reverse())).toBe(5);
  });
});

describe('isImageShown', () => {
  it('shows everything when nothing is invalid', () => {
    expect(isImageShown(0, undefined)).toBe(true);
    expect(isImageShown(-3, null)).toBe(true);
    expect(isImageShown(5, 5)).toBe(false);
    expect(isImageShown(6, 5)).toBe(true);
  });
});

describe('variantIterationRange (§8.2)', () => {
  it('URLs cycling over 4 names at 0..9: min 6, max 9', () => {
    expect(variantIterationRange(cycling(4))).toEqual({ min_iteration: 6, max_iteration: 9 });
  });

  it('is undefined without events', () => {
    expect(variantIterationRange([])).toBeUndefined();
  });

  it('with distinct URLs spans every iteration', () => {
    expect(
      variantIterationRange([
        { iter: 0, url: 'a' },
        { iter: 1, url: 'b' },
      ]),
    ).toEqual({ min_iteration: 0, max_iteration: 1 });
  });
});
