// INGEST_MAX_INFLIGHT_BYTES: the process's bound, a quarter of it for a company's requests together; a request whose
// company holds nothing else may pass the quarter; beyond either, 429 ingest_overloaded with Retry-After.
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../shared/errors/error-catalogue.js';
import { InflightBudget } from './inflight-budget.js';

const refusal = (take: () => void) => {
  try {
    take();
  } catch (error) {
    if (isApiError(error)) return [error.httpStatus, error.id, error.message, error.headers['retry-after']];
    throw error;
  }
  return undefined;
};

describe('InflightBudget', () => {
  it("a company's requests together hold at most a quarter; other companies take the rest", () => {
    const budget = new InflightBudget(400);
    budget.take('a', 60);
    budget.take('a', 30, 60);
    // A second request of a: its company holds 90 already.
    budget.take('a', 10);
    expect(refusal(() => budget.take('a', 1, 10))).toEqual([
      429,
      'ingest_overloaded',
      "Too many events in flight, retry later (the company's share of INGEST_MAX_INFLIGHT_BYTES)",
      '1',
    ]);
    budget.take('b', 300);
    expect(budget.inUse).toBe(400);
    expect(refusal(() => budget.take('c', 1))).toEqual([
      429,
      'ingest_overloaded',
      'Too many events in flight, retry later',
      '1',
    ]);
    budget.give('a', 10);
    budget.give('b', 300);
    expect(refusal(() => budget.take('a', 11))).toBeDefined();
    expect(refusal(() => budget.take('a', 10))).toBeUndefined();
    expect(refusal(() => budget.take('c', 100))).toBeUndefined();
  });

  it('a request alone in its company may pass the quarter, within the whole budget', () => {
    const budget = new InflightBudget(400);
    budget.take('b', 50);
    budget.take('a', 100);
    budget.take('a', 200, 100);
    expect(budget.inUse).toBe(350);
    expect(refusal(() => budget.take('a', 51, 300))).toBeDefined();
    budget.give('a', 300);
    budget.give('b', 50);
    expect(budget.inUse).toBe(0);
    // Nothing held at all: a request may take more than the whole (the session answers 413 for that itself).
    expect(refusal(() => budget.take('a', 500))).toBeUndefined();
  });
});
