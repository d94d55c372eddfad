/**
 * Full garbage collections when memory outside the V8 heap grows fast.
 *
 * An ingest process taking large bodies allocates buffers (socket chunks,
 * message buffers, nats.js's copy of each message, spill reads) that are
 * often still referenced at the next young collection, so their handles
 * reach the old generation and the memory behind them is freed only at a
 * full collection. V8 counts that memory against the old generation's
 * limit, which it lets grow to a multiple of the live heap, so ~100-150 MB
 * of dead buffers could pile up before it collected (docs/performance.md,
 * "Ingest memory"). This asks for a full collection once external memory
 * has grown `growthBytes` past its lowest level since the last one: a few
 * ~10-30 ms pauses while large bodies arrive, none while memory is flat.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export interface DeadBufferCollectorOptions {
  /** Growth of external memory past its low-water mark that asks for a full collection. */
  growthBytes: number;
  /** How often external memory is read. */
  intervalMs: number;
  /** Memory outside the V8 heap (buffers), in bytes. */
  externalBytes?: () => number;
  /** A full collection, synchronous. */
  collect: () => void;
  /** After each collection: external memory before and after it, and its duration. */
  onCollect?: (outcome: { beforeBytes: number; afterBytes: number; ms: number }) => void;
}

export class DeadBufferCollector {
  private lowWater = Number.POSITIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private readonly externalBytes: () => number;

  constructor(private readonly options: DeadBufferCollectorOptions) {
    this.externalBytes = options.externalBytes ?? (() => process.memoryUsage().external);
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

  /** One reading; collects when external memory grew past the threshold. Returns whether it collected. */
  check(): boolean {
    const external = this.externalBytes();
    // V8's own collections lower external memory too: growth counts from the lowest level seen.
    if (external < this.lowWater) this.lowWater = external;
    if (external - this.lowWater < this.options.growthBytes) return false;
    const started = performance.now();
    this.options.collect();
    const after = this.externalBytes();
    this.lowWater = after;
    this.options.onCollect?.({ beforeBytes: external, afterBytes: after, ms: performance.now() - started });
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
