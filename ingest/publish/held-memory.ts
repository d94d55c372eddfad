/**
 * The memory an ingest process lets its requests' encoded records take
 * (INGEST_MAX_MEMORY_BYTES). Beyond it a request's records go to its spill
 * file as they arrive (record-sink.ts), so that memory no longer grows with
 * the bodies in flight; INGEST_MAX_INFLIGHT_BYTES still bounds what requests
 * hold in all (memory and disk).
 */
export class HeldMemory {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `bytes` if they fit under the limit. */
  tryTake(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  /** Takes `bytes` whatever the limit: a segment too small to be worth a write. */
  take(bytes: number): void {
    this.used += bytes;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}
