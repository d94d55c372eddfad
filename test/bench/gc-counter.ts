/**
 * Garbage collections of this process while a path benchmark's clock runs:
 * young-generation collections come with what is allocated per event, and
 * V8's helper threads spend a large share of the ingest process's CPU on
 * them (docs/performance.md), so the count shows a change in allocation
 * that the CPU figure may hide in noise.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const isMinor = (entry: PerformanceEntry): boolean =>
  (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;

export interface GcCount {
  /** Stops counting; answers young (minor) and other collections. */
  stop(): Promise<{ minor: number; major: number }>;
}

export function countCollections(): GcCount {
  let minor = 0;
  let major = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (isMinor(entry)) minor++;
      else major++;
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: async () => {
      // Node delivers the entries on a later turn of the event loop, never during synchronous work.
      await new Promise((resolve) => setTimeout(resolve, 10));
      observer.disconnect();
      return { minor, major };
    },
  };
}
