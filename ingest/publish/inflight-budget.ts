/**
 * Bounds the bytes of parsed events one ingest process holds before
 * JetStream acknowledged them, so that a burst of large requests gets 429
 * with Retry-After instead of exhausting memory.
 */
import { apiError } from '../../shared/errors/error-catalogue.js';

export class InflightBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` from the budget, or throws 429 when it would be exceeded. */
  take(bytes: number): void {
    if (this.used + bytes > this.limit && this.used > 0) {
      throw apiError('ingest_overloaded', undefined, undefined, { headers: { 'retry-after': '1' } });
    }
    this.used += bytes;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}
