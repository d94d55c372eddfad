import { afterEach, describe, expect, it, vi } from 'vitest';
import { ListingCache } from './listing-cache.js';
import { parseListing } from './metric-listing.js';

const listing = (...members: string[]) => ({ members, entries: parseListing(members) });
const member = (metric: string, size = 0) => `training_stats_scalar\u001f${metric}${'x'.repeat(size)}\u001fv\u001f1`;

describe('ListingCache', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a kept listing for its own version only', () => {
    const cache = new ListingCache(1 << 20);
    const l = listing(member('a'));
    cache.set('k', '7', l.entries, l.members);
    expect(cache.holds('k')).toBe(true);
    expect(cache.get('k', '7')).toBe(l.entries);
    expect(cache.get('k', '8')).toBeUndefined();
    expect(cache.get('k', undefined)).toBeUndefined();
    expect(cache.get('other', '7')).toBeUndefined();
  });

  it('keeps nothing read without a version, and forgets what it kept of that key', () => {
    const cache = new ListingCache(1 << 20);
    const l = listing(member('a'));
    cache.set('k', '7', l.entries, l.members);
    cache.set('k', undefined, [], []);
    expect(cache.holds('k')).toBe(false);
    expect(cache.get('k', '7')).toBeUndefined();
  });

  it('keeps nothing when given no bytes', () => {
    const cache = new ListingCache(0);
    const l = listing(member('a'));
    cache.set('k', '7', l.entries, l.members);
    expect(cache.enabled).toBe(false);
    expect(cache.holds('k')).toBe(false);
  });

  it('looks a listing up without starting a timer', () => {
    vi.useFakeTimers();
    const cache = new ListingCache(1 << 20);
    const l = listing(member('a'));
    cache.set('k', '7', l.entries, l.members);
    vi.advanceTimersByTime(10);
    const timers = vi.getTimerCount();
    for (let i = 0; i < 3; i++) {
      expect(cache.holds('k')).toBe(true);
      expect(cache.get('k', '7')).toBe(l.entries);
      expect(vi.getTimerCount()).toBe(timers);
      vi.advanceTimersByTime(10);
    }
  });

  it('stays within its bytes, dropping the least recently used first, and never keeps a listing above them', () => {
    const cache = new ListingCache(4000);
    const each = listing(member('m', 1000));
    for (const key of ['a', 'b', 'c']) cache.set(key, '1', each.entries, each.members);
    expect(cache.get('a', '1')).toBe(each.entries);
    cache.set('d', '1', each.entries, each.members);
    // b was used least recently (a was just read).
    expect([...'abcd'].map((k) => cache.holds(k))).toEqual([true, false, true, true]);
    const huge = listing(...Array.from({ length: 5 }, (_, i) => member(`h${i}`, 1000)));
    cache.set('a', '2', huge.entries, huge.members);
    expect(cache.holds('a')).toBe(false);
    expect(cache.holds('c') && cache.holds('d')).toBe(true);
  });
});
