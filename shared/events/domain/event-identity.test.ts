import { describe, expect, it } from 'vitest';
import { eventIdentityDigest, eventIdentityKey, type EventIdentity } from './event-identity.js';

const base: EventIdentity = {
  company: 'c1',
  namespace: 'task',
  entity: 't1',
  type: 'training_stats_scalar',
  iter: 3,
  metric: 'loss',
  variant: 'train',
};

describe('eventIdentityKey', () => {
  it('is stable', () => {
    expect(eventIdentityKey(base)).toBe(eventIdentityKey({ ...base }));
  });

  it('differs when any part differs', () => {
    const variants: EventIdentity[] = [
      { ...base, company: 'c2' },
      { ...base, namespace: 'model' },
      { ...base, entity: 't2' },
      { ...base, type: 'plot' },
      { ...base, iter: 4 },
      { ...base, iter: undefined },
      { ...base, metric: 'acc' },
      { ...base, variant: 'val' },
      { ...base, key: 'k' },
      { ...base, key: '' },
    ];
    const keys = new Set([base, ...variants].map(eventIdentityKey));
    expect(keys.size).toBe(variants.length + 1);
  });

  it('treats null as absent', () => {
    expect(eventIdentityKey({ ...base, iter: null, key: null })).toBe(eventIdentityKey({ ...base, iter: undefined }));
  });

  it('cannot be fooled by separators or escapes inside the parts', () => {
    const a = eventIdentityKey({ ...base, metric: 'a|b', variant: 'c' });
    const b = eventIdentityKey({ ...base, metric: 'a', variant: 'b|c' });
    expect(a).not.toBe(b);
    const c = eventIdentityKey({ ...base, metric: 'a\\', variant: '|c' });
    const d = eventIdentityKey({ ...base, metric: 'a', variant: '\\|c' });
    expect(c).not.toBe(d);
    expect(eventIdentityKey({ ...base, key: '\\N' })).not.toBe(eventIdentityKey({ ...base }));
  });

  it('has a short fixed-size digest form', () => {
    const digest = eventIdentityDigest(base);
    expect(digest).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(eventIdentityDigest({ ...base })).toBe(digest);
    expect(eventIdentityDigest({ ...base, iter: 4 })).not.toBe(digest);
  });
});
