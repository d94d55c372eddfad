/**
 * Full garbage collections where V8's heuristics keep memory an ingest
 * process no longer uses.
 *
 * While large bodies arrive: they go through buffers (socket chunks, message
 * buffers, nats.js's copy of each message, spill writes and reads) that often
 * outlive a young collection, so the memory behind them is freed only at a
 * full one; V8 counts it against an old-generation limit it lets grow to a
 * multiple of the live heap, so ~100 MB of dead buffers could pile up
 * (docs/performance.md, "Ingest memory"). So while the process holds
 * requests, a full collection once external memory grew `growthBytes` past
 * its lowest level since the last one.
 *
 * When the process goes idle: a busy spell of small requests leaves the heap
 * committed at several times what is live (124-175 MB against 35 MB after
 * bench:ingest's throughput phases), which V8 gives back only after seconds
 * of idleness; the next burst of large bodies then starts from there. So one
 * full collection once nothing has been held for a whole interval, if the
 * heap grew `growthBytes` past what was live after the last one.
 *
 * Reads of an `all` process move neither trigger: only ingest's own requests
 * make it busy.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export interface ProcessMemory {
  /** Memory outside the V8 heap (buffers), in bytes. */
  external: number;
  heapTotal: number;
  heapUsed: number;
}

export type CollectionTrigger = 'growth' | 'idle';

export interface DeadBufferCollectorOptions {
  /** Growth of external memory (busy) or of the heap past the live heap (idle) that asks for a full collection. */
  growthBytes: number;
  /** How often memory is read. */
  intervalMs: number;
  /** Whether the process holds ingest requests now. */
  busy: () => boolean;
  memory?: () => ProcessMemory;
  /** A full collection, synchronous. */
  collect: () => void;
  /** After each collection: why, memory before and after it, and its duration. */
  onCollect?: (outcome: {
    trigger: CollectionTrigger;
    before: ProcessMemory;
    after: ProcessMemory;
    ms: number;
  }) => void;
}

export class DeadBufferCollector {
  private lowWater = Number.POSITIVE_INFINITY;
  /** The heap in use right after the last collection: what was live then (0 before the first). */
  private liveHeap = 0;
  private idleReadings = 0;
  private collectedThisIdleSpell = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly memory: () => ProcessMemory;

  constructor(private readonly options: DeadBufferCollectorOptions) {
    this.memory = options.memory ?? (() => process.memoryUsage());
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.options.intervalMs);
    // A process with nothing else to do may exit: this is housekeeping, not work.
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One reading; collects when a trigger holds, and answers which. */
  check(): CollectionTrigger | undefined {
    const now = this.memory();
    const { growthBytes } = this.options;
    // V8's own collections lower external memory too: growth counts from the lowest level seen.
    if (now.external < this.lowWater) this.lowWater = now.external;
    if (!this.options.busy()) {
      // Idle for a whole interval (two readings), once a spell.
      if (++this.idleReadings < 2 || this.collectedThisIdleSpell) return undefined;
      if (now.heapTotal - this.liveHeap < growthBytes) return undefined;
      this.collectedThisIdleSpell = true;
      return this.collect('idle', now);
    }
    this.idleReadings = 0;
    this.collectedThisIdleSpell = false;
    if (now.external - this.lowWater < growthBytes) return undefined;
    return this.collect('growth', now);
  }

  private collect(trigger: CollectionTrigger, before: ProcessMemory): CollectionTrigger {
    const started = performance.now();
    this.options.collect();
    const ms = performance.now() - started;
    const after = this.memory();
    this.lowWater = after.external;
    this.liveHeap = after.heapUsed;
    this.options.onCollect?.({ trigger, before, after, ms });
    return trigger;
  }
}

/**
 * V8's full collection as a function, or undefined where the runtime refuses it.
 * The process need not start with --expose-gc: the flag applies to contexts made
 * after it is set, so a new context hands out its `gc` (the same heap).
 */
export function fullCollection(): (() => void) | undefined {
  const exposed: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return () => void (exposed as () => void)();
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = vm.runInNewContext('gc');
    return typeof gc === 'function' ? () => void (gc as () => void)() : undefined;
  } catch {
    return undefined;
  }
}
