/**
 * Bytes of messages a process has out to JetStream awaiting their PubAck,
 * across all its requests. Without it, requests committing together hand
 * every message to nats.js at once, which copies them all into its outbound
 * buffer: tens of large requests doubled their size in memory. Waiters are
 * served in arrival order, so a request's messages keep their order.
 */
export class PublishWindow {
  private used = 0;
  private readonly waiting: Array<{ bytes: number; go: () => void }> = [];

  constructor(readonly limit: number) {}

  /** Resolves with the release once `bytes` are in the window (one message larger than the window goes alone). */
  acquire(bytes: number): Promise<() => void> {
    if (this.waiting.length === 0 && this.fits(bytes)) return Promise.resolve(this.take(bytes));
    return new Promise((resolve) => this.waiting.push({ bytes, go: () => resolve(this.take(bytes)) }));
  }

  get inFlight(): number {
    return this.used;
  }

  private fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limit;
  }

  private take(bytes: number): () => void {
    this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
      while (this.waiting.length > 0 && this.fits(this.waiting[0]!.bytes)) this.waiting.shift()!.go();
    };
  }
}
