import { describe, expect, it } from 'vitest';
import { parseListing } from '../store/metric-listing.js';
import { listingView } from './listing-views.js';

const listing = () => parseListing(['training_stats_scalar\u001fm\u001fv\u001f1']);

describe('listingView', () => {
  it('computes a view once per listing and name, and again for another listing or name', () => {
    const [a, b] = [listing(), listing()];
    let computed = 0;
    const view = (entries: typeof a, name: string) => listingView(entries, name, () => ({ n: ++computed }));
    const first = view(a, 'x');
    expect(view(a, 'x')).toBe(first);
    expect(computed).toBe(1);
    expect(view(a, 'y')).toEqual({ n: 2 });
    // A listing read afresh (another array, though equal) gets its own views.
    expect(view(b, 'x')).toEqual({ n: 3 });
    expect(view(a, 'x')).toBe(first);
  });

  it('keeps a view that is undefined without computing it again', () => {
    const a = listing();
    let computed = 0;
    listingView(a, 'none', () => void computed++);
    listingView(a, 'none', () => void computed++);
    expect(computed).toBe(1);
  });
});
