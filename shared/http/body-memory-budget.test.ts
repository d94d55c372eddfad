// HTTP_MAX_BUFFERED_BODY_BYTES: the bodies a process holds at once, a quarter of them per company; a call that
// finds nothing held may take its whole body; beyond, 429 with Retry-After at once (never a wait).
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../errors/error-catalogue.js';
import { BodyMemoryBudget } from './body-memory-budget.js';

const refusal = (take: () => void) => {
  try {
    take();
  } catch (error) {
    if (isApiError(error)) return [error.httpStatus, error.id, error.headers['retry-after']];
    throw error;
  }
  return undefined;
};

describe('BodyMemoryBudget', () => {
  it('a company holds at most a quarter, the process at most the whole; releases give it back', async () => {
    const registry = new Registry();
    const budget = new BodyMemoryBudget(400, registry);
    const a1 = budget.hold('a');
    a1.take(60);
    a1.take(40);
    expect(refusal(() => budget.hold('a').take(1))).toEqual([429, 'request_bodies_overloaded', '1']);
    const [b, c, d] = ['b', 'c', 'd'].map((company) => budget.hold(company));
    b!.take(100);
    c!.take(100);
    d!.take(100);
    expect(budget.inUse).toBe(400);
    expect(refusal(() => budget.hold('e').take(1))).toEqual([429, 'request_bodies_overloaded', '1']);
    expect(await registry.getSingleMetricAsString('clearml_http_buffered_body_bytes')).toMatch(/ 400$/);
    a1.release();
    a1.release();
    expect(budget.inUse).toBe(300);
    expect(refusal(() => budget.hold('e').take(100))).toBeUndefined();
  });

  it('a call that finds nothing held may take a body larger than the budget', () => {
    const budget = new BodyMemoryBudget(400);
    budget.hold('a').take(1_000);
    expect(refusal(() => budget.hold('b').take(1))).toEqual([429, 'request_bodies_overloaded', '1']);
  });

  it('give returns part of a hold, never more than it took; release returns the rest', () => {
    const budget = new BodyMemoryBudget(400);
    const a = budget.hold('a');
    a.take(60);
    a.take(30);
    a.give(60);
    expect(budget.inUse).toBe(30);
    // Another company's bytes are not given back by a's hold.
    budget.hold('b').take(50);
    a.give(1_000);
    expect(budget.inUse).toBe(50);
    a.take(100);
    a.release();
    expect(budget.inUse).toBe(50);
  });

  it('on any sequence of takes and releases: within the bounds, and nothing left once every hold is released', () => {
    const step = fc.record({
      company: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      bytes: fc.nat(150),
      release: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const budget = new BodyMemoryBudget(400);
        const holds = new Map<string, ReturnType<BodyMemoryBudget['hold']>[]>();
        const held = new Map<string, number>();
        for (const { company, bytes, release } of steps) {
          const list = holds.get(company) ?? [];
          if (release && list.length > 0) {
            list.shift()!.release();
            continue;
          }
          const hold = budget.hold(company);
          const before = budget.inUse;
          const companyBefore = held.get(company) ?? 0;
          const refused = refusal(() => hold.take(bytes)) !== undefined;
          const allowed =
            (companyBefore === 0 || companyBefore + bytes <= 100) && (before === 0 || before + bytes <= 400);
          expect(refused).toBe(!allowed);
          if (!refused) {
            held.set(company, companyBefore + bytes);
            list.push({
              take: hold.take,
              give: hold.give,
              release: () => (hold.release(), held.set(company, (held.get(company) ?? 0) - bytes)),
            });
            holds.set(company, list);
          }
        }
        for (const list of holds.values()) for (const hold of list) hold.release();
        expect(budget.inUse).toBe(0);
      }),
    );
  });
});
