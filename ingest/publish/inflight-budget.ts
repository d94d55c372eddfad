/**
 * Bounds the bytes of parsed events one ingest process holds before
 * JetStream acknowledged them, so that a burst of large requests gets 429
 * with Retry-After instead of exhausting memory.
 *
 * A company's requests together hold at most a quarter of the budget, so
 * that one company's concurrent requests leave three quarters to everyone
 * else: before, company A's stalled or slow requests could take the whole
 * budget and every other company's events were refused with 429 until A's
 * were acknowledged. A request whose company holds nothing else may go past
 * the quarter (a large request alone is not refused for the share; the whole
 * budget still bounds it).
 */
import { apiError } from '../../shared/errors/error-catalogue.js';

export class InflightBudget {
  private used = 0;
  private readonly byCompany = new Map<string, number>();
  readonly perCompany: number;

  constructor(readonly limit: number) {
    this.perCompany = Math.floor(limit / 4);
  }

  /**
   * Takes `bytes` for a request of `company` that already holds `requestHeld`, or throws 429 when
   * other requests hold the budget, or its company's other requests its share.
   */
  take(company: string, bytes: number, requestHeld = 0): void {
    const companyUsed = this.byCompany.get(company) ?? 0;
    const othersOfCompany = companyUsed - requestHeld;
    if (
      (this.used + bytes > this.limit && this.used > 0) ||
      (othersOfCompany > 0 && companyUsed + bytes > this.perCompany)
    ) {
      throw apiError(
        'ingest_overloaded',
        this.used + bytes > this.limit ? undefined : "the company's share of INGEST_MAX_INFLIGHT_BYTES",
        undefined,
        { headers: { 'retry-after': '1' } },
      );
    }
    this.used += bytes;
    this.byCompany.set(company, companyUsed + bytes);
  }

  give(company: string, bytes: number): void {
    if (bytes === 0) return;
    const left = (this.byCompany.get(company) ?? 0) - bytes;
    if (left > 0) this.byCompany.set(company, left);
    else this.byCompany.delete(company);
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}
