/**
 * Young-generation garbage collections of this process while a path
 * benchmark's clock runs: they come with what is allocated per event, and
 * V8's helper threads spend a large share of the ingest process's CPU on
 * them (docs/performance.md), so the count shows a change in allocation
 * that the CPU figure may hide in noise.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

const isMinor = (entry: PerformanceEntry): boolean =>
  (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR;

export interface MinorGcCount {
  /** Stops counting; answers the young-generation collections seen. */
  stop(): Promise<number>;
}

export function countMinorCollections(): MinorGcCount {
  let minor = 0;
  const observer = new PerformanceObserver((list) => {
    minor += list.getEntries().filter(isMinor).length;
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: async () => {
      // Node delivers the entries on a later turn of the event loop, never during synchronous work.
      await new Promise((resolve) => setTimeout(resolve, 10));
      observer.disconnect();
      return minor;
    },
  };
}
