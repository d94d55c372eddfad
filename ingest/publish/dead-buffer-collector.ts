/**
 * Full garbage collections where V8's heuristics keep memory an ingest
 * process no longer uses.
 *
 * While large bodies arrive they go through buffers (socket chunks, message
 * buffers, nats.js's copy of each message, spill writes and reads) that often
 * outlive a young collection, so the memory behind them is freed only at a
 * full one; V8 counts it against an old-generation limit it lets grow to a
 * multiple of the live heap, so ~100 MB of dead buffers could pile up
 * (docs/performance.md, "Ingest memory"). So while the process holds
 * requests, a full collection once external memory grew `growthBytes` past
 * its lowest level since the last.
 *
 * Nothing is collected when the process goes idle: that cost a full
 * collection at the end of every busy spell (every pause of the load) and
 * gave back a few MB of heap; the next burst's first growth collection
 * trims the heap anyway (docs/performance.md, "No collection when idle").
 * Reads of an `all` process do not count as busy: only ingest's own
 * requests do.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export interface ProcessMemory {
  /** Memory outside the V8 heap (buffers), in bytes. */
  external: number;
  heapTotal: number;
  heapUsed: number;
}

export interface DeadBufferCollectorOptions {
  /** Growth of external memory while busy that asks for a full collection. */
  growthBytes: number;
  /** How often memory is read. */
  intervalMs: number;
  /** Whether the process holds ingest requests now. */
  busy: () => boolean;
  memory?: () => ProcessMemory;
  /** A full collection, synchronous. */
  collect: () => void;
  /** After each collection: memory before and after it, and its duration. */
  onCollect?: (outcome: { before: ProcessMemory; after: ProcessMemory; ms: number }) => void;
}

export class DeadBufferCollector {
  private lowWater = Number.POSITIVE_INFINITY;
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

  /** One reading; collects when external memory grew enough while busy, and answers whether it did. */
  check(): boolean {
    const now = this.memory();
    // V8's own collections lower external memory too: growth counts from the lowest level seen.
    if (now.external < this.lowWater) this.lowWater = now.external;
    if (!this.options.busy() || now.external - this.lowWater < this.options.growthBytes) return false;
    const started = performance.now();
    this.options.collect();
    const ms = performance.now() - started;
    const after = this.memory();
    this.lowWater = after.external;
    this.options.onCollect?.({ before: now, after, ms });
    return true;
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
