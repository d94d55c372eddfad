/**
 * Decides which partitions this writer consumes. Every third of the lease
 * TTL it renews its leases, announces itself, and moves toward its fair
 * share, ceil(partitions / live writers): extra partitions are handed back
 * gracefully (their held batch is finished first), missing ones are taken
 * from the free leases. A lease that cannot be renewed is dropped at once:
 * another writer may already own it, and per-entity order needs a single
 * consumer per partition.
 */
import type { Logger } from '../../shared/observability/logger.js';
import type { PartitionLeases } from './partition-leases.js';

/**
 * A point in time read on two clocks; the time since it is the larger of the two readings.
 * The monotonic clock alone would miss a host suspended to RAM (Linux stops it meanwhile),
 * the wall clock alone a step back (NTP): neither may stretch a lease. Both keep counting
 * while the process is stopped (SIGSTOP), so a writer that wakes up knows at once.
 */
interface Instant {
  mono: number;
  wall: number;
}

const now = (): Instant => ({ mono: performance.now(), wall: Date.now() });
const since = (start: Instant): number => {
  const at = now();
  return Math.max(at.mono - start.mono, at.wall - start.wall);
};
const NEVER: Instant = { mono: -Infinity, wall: -Infinity };

export interface PartitionHandlers {
  /** Start consuming the partition (its lease is held). */
  take(partition: number): void;
  /** Stop at once, storing and acknowledging nothing more: the lease is lost. */
  drop(partition: number): void;
  /** Stop gracefully; resolves when the partition may be given to another writer. */
  handBack(partition: number): Promise<void>;
}

export interface OwnershipOptions {
  partitions: number;
  leaseTtlMs: number;
  onOwnedChange?: (count: number) => void;
}

export class PartitionOwnership {
  private readonly owned = new Set<number>();
  private readonly releasing = new Map<number, Promise<void>>();
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopped = false;
  /** Start time of the last renewal that succeeded: every lease held is valid until this + TTL. */
  private renewedAt = NEVER;
  private lastTickOkAt = NEVER;
  private lastError = '';

  constructor(
    private readonly leases: PartitionLeases,
    private readonly handlers: PartitionHandlers,
    private readonly options: OwnershipOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), Math.max(100, Math.floor(this.options.leaseTtlMs / 3)));
  }

  /** Hands every partition back and leaves the set of live writers. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.ticking;
    await Promise.all([...this.owned].map((p) => this.handBack(p)));
    await this.leases.leave().catch(() => undefined);
  }

  /** True while this writer's lease on the partition is certainly still valid (with a margin for clock drift). */
  holds(partition: number): boolean {
    return this.owned.has(partition) && since(this.renewedAt) < this.options.leaseTtlMs * 0.8;
  }

  ownedCount(): number {
    return this.owned.size;
  }

  /** Rejects when the ownership loop cannot reach Redis: this writer then consumes nothing. */
  healthy(): void {
    if (this.stopped) throw new Error('writer stopped');
    if (since(this.lastTickOkAt) > this.options.leaseTtlMs * 2)
      throw new Error(`partition leases not renewed: ${this.lastError || 'no answer'}`);
  }

  /** A partition whose consumer failed: give it up so that it is taken again (by us or another writer) from a clean state. */
  async abandon(partition: number): Promise<void> {
    if (!this.owned.delete(partition)) return;
    this.options.onOwnedChange?.(this.owned.size);
    await this.leases.release(partition).catch(() => undefined);
  }

  private tick(): Promise<void> {
    if (this.ticking || this.stopped) return this.ticking ?? Promise.resolve();
    this.ticking = this.runTick().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async runTick(): Promise<void> {
    const started = now();
    try {
      await this.renewOwned(started);
      const live = await this.leases.heartbeat();
      if (this.stopped) return;
      const share = Math.ceil(this.options.partitions / Math.max(1, live));
      const holding = [...this.owned].filter((p) => !this.releasing.has(p));
      if (holding.length > share) {
        for (const p of holding.sort((a, b) => b - a).slice(0, holding.length - share)) void this.handBack(p);
      } else if (holding.length < share) {
        await this.acquire(share - holding.length);
      }
      this.lastTickOkAt = now();
      this.lastError = '';
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) this.logger.warn({ err: error }, 'partition lease renewal failed');
      this.lastError = message;
      // Past this point another writer may take our partitions: stop before it can.
      if (since(this.renewedAt) >= this.options.leaseTtlMs * 0.66) for (const p of [...this.owned]) this.lose(p);
    }
  }

  private async renewOwned(started: Instant): Promise<void> {
    const lost = await this.leases.renew([...this.owned]);
    for (const p of lost) this.lose(p);
    // A renewal counts once a replica has it (when there are replicas): until then holds() keeps counting from the last one.
    await this.leases.replicated();
    this.renewedAt = started;
  }

  private async acquire(wanted: number): Promise<void> {
    const { partitions } = this.options;
    // Start at a writer-specific offset so that writers starting together do not race for the same leases.
    const offset = hashOf(this.leases.writerId) % partitions;
    const candidates: number[] = [];
    for (let i = 0; i < partitions; i++) {
      const p = (offset + i) % partitions;
      if (!this.owned.has(p)) candidates.push(p);
    }
    const taken = await this.leases.acquire(candidates, wanted);
    if (taken.length > 0) {
      // Not used before a replica has them: a failover would otherwise hand them out again.
      await this.leases.replicated().catch(async (error: unknown) => {
        await Promise.all(taken.map((p) => this.leases.release(p).catch(() => undefined)));
        throw error;
      });
    }
    for (const p of taken) {
      this.owned.add(p);
      this.handlers.take(p);
    }
    if (taken.length > 0) {
      this.logger.info({ partitions: taken, owned: this.owned.size }, 'partitions taken');
      this.options.onOwnedChange?.(this.owned.size);
    }
  }

  private lose(partition: number): void {
    if (!this.owned.delete(partition)) return;
    this.logger.warn({ partition }, 'partition lease lost: consuming stopped');
    this.handlers.drop(partition);
    this.options.onOwnedChange?.(this.owned.size);
  }

  private handBack(partition: number): Promise<void> {
    const pending = this.releasing.get(partition);
    if (pending) return pending;
    const releasing = (async () => {
      try {
        await this.handlers.handBack(partition);
        if (this.owned.delete(partition)) {
          await this.leases.release(partition).catch(() => undefined);
          this.logger.info({ partition, owned: this.owned.size }, 'partition handed back');
          this.options.onOwnedChange?.(this.owned.size);
        }
      } finally {
        this.releasing.delete(partition);
      }
    })();
    this.releasing.set(partition, releasing);
    return releasing;
  }
}

function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
