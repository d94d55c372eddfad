// The writer lag gate (writer-lag-gate.ts): while the writers are more than INGEST_MAX_WRITER_LAG_MS behind, a
// company sending at least half as much, of late, as the heaviest sender is refused with 429 writers_behind and
// Retry-After; a lighter one is let through; within the bound, or with the bound at 0, nobody is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors/error-catalogue.js';
import { WriterLagGate } from './writer-lag-gate.js';

function gate(maxLagMs = 5_000) {
  const state = { lag: 0, now: 0, stalled: false };
  const g = new WriterLagGate({ maxLagMs, lagMs: () => state.lag, stalled: () => state.stalled, now: () => state.now });
  return { g, state };
}

function refusal(admit: () => void): ApiError | undefined {
  try {
    admit();
    return undefined;
  } catch (error) {
    return error as ApiError;
  }
}

describe('WriterLagGate', () => {
  it('lets everyone through while the writers are within the bound', () => {
    const { g, state } = gate();
    g.count('a', 10_000_000);
    state.lag = 5_000;
    expect(refusal(() => g.admit('a'))).toBeUndefined();
  });

  it('refuses the heaviest sender beyond the bound with 429 writers_behind and Retry-After, not a light one', () => {
    const { g, state } = gate();
    g.count('a', 10_000_000);
    g.count('b', 1_000);
    state.lag = 5_001;
    const refused = refusal(() => g.admit('a'));
    expect(refused?.id).toBe('writers_behind');
    expect(refused?.entry.code).toBe(429);
    expect(refused?.headers).toMatchObject({ 'retry-after': '1' });
    expect(refusal(() => g.admit('b'))).toBeUndefined();
    // A company not seen of late sends least of all.
    expect(refusal(() => g.admit('c'))).toBeUndefined();
    expect(g.refusals).toBe(1);
  });

  it('refuses every company sending at least half of the heaviest: two floods are both held', () => {
    const { g, state } = gate();
    g.count('a', 10_000_000);
    g.count('c', 5_000_000);
    g.count('b', 1_000);
    state.lag = 6_000;
    expect(refusal(() => g.admit('a'))?.id).toBe('writers_behind');
    expect(refusal(() => g.admit('c'))?.id).toBe('writers_behind');
    expect(refusal(() => g.admit('b'))).toBeUndefined();
  });

  it('holds a company alone at the bound too', () => {
    const { g, state } = gate();
    g.count('a', 1_000);
    state.lag = 60_000;
    expect(refusal(() => g.admit('a'))?.id).toBe('writers_behind');
  });

  it('refuses nobody while the writers store nothing at all (a writer or a store down)', () => {
    const { g, state } = gate();
    g.count('a', 10_000_000);
    g.count('b', 1_000);
    state.lag = 60_000;
    state.stalled = true;
    expect(refusal(() => g.admit('a'))).toBeUndefined();
    state.stalled = false;
    expect(refusal(() => g.admit('a'))?.id).toBe('writers_behind');
  });

  it('never refuses with the bound at 0', () => {
    const { g, state } = gate(0);
    g.count('a', 10_000_000);
    state.lag = 3_600_000;
    expect(refusal(() => g.admit('a'))).toBeUndefined();
  });

  it('weighs recent sending: bytes count half after five seconds, and a silent company is forgotten', () => {
    const { g, state } = gate();
    g.count('a', 4_000_000);
    state.now = 5_000;
    g.count('b', 2_100_000); // a's 4 MB count 2 MB now: b is the heaviest
    state.lag = 10_000;
    expect(refusal(() => g.admit('b'))?.id).toBe('writers_behind');
    expect(refusal(() => g.admit('a'))?.id).toBe('writers_behind'); // 2 MB, at least half of b's 2.1
    state.now = 15_000; // a 0.5 MB, b 0.525 MB, and c sends 2 MB: c alone is heavy
    g.count('c', 2_000_000);
    expect(refusal(() => g.admit('a'))).toBeUndefined();
    expect(refusal(() => g.admit('b'))).toBeUndefined();
    expect(refusal(() => g.admit('c'))?.id).toBe('writers_behind');
    state.now = 15_000 + 5 * 60_000;
    g.sweep();
    expect(g.companies).toBe(0);
  });

  it('lets through exactly the companies under half of the heaviest, beyond the bound (generated sending)', () => {
    const sent = fc.array(
      fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.integer({ min: 1, max: 1e8 }), fc.nat(3_000)),
      {
        minLength: 1,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(sent, fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), (sends, asking) => {
        const { g, state } = gate();
        const history: Array<[string, number, number]> = [];
        for (const [company, bytes, after] of sends) {
          state.now += after;
          g.count(company, bytes);
          history.push([company, bytes, state.now]);
        }
        state.lag = 5_001;
        const recent = (company: string) =>
          history
            .filter(([c]) => c === company)
            .reduce((sum, [, bytes, at]) => sum + bytes * 2 ** (-(state.now - at) / 5_000), 0);
        const heaviest = Math.max(...['a', 'b', 'c', 'd', 'e'].map(recent));
        const refused = refusal(() => g.admit(asking)) !== undefined;
        const own = recent(asking);
        // Away from the edge, where rounding may fall either way.
        if (Math.abs(own * 2 - heaviest) > 1e-6 * heaviest) expect(refused).toBe(own * 2 >= heaviest);
      }),
    );
  });
});
